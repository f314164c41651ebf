"""`jax.core`'s public names (JAX 0.10.2: `AbstractValue Atom ParamDict ShapedArray
Trace Tracer Value ensure_compile_time_eval eval_context eval_jaxpr max_dim min_dim`),
served both as `import astjax as jax; jax.core.X` and as the `jax.core` that
`install_as_jax` serves, with JAX's meaning. Expected values are real JAX 0.10.2's (the
same programs run with `import jax`)."""
import typing

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import jax_alias
from astjax.errors import AstjaxError

pytestmark = pytest.mark.filterwarnings(   # (the tests record what staging saw)
    "ignore::astjax.errors.SideEffectWarning")

JAX_CORE = ("AbstractValue Atom ParamDict ShapedArray Trace Tracer Value "
            "ensure_compile_time_eval eval_context eval_jaxpr max_dim min_dim").split()


def _served_core():
    was_installed = "jax" in __import__("sys").modules
    astjax.install_as_jax()
    try:
        import jax
        return jax.core
    finally:
        if not was_installed:
            jax_alias.uninstall()


@pytest.fixture(params=["astjax", "served"])
def core(request):
    return astjax.core if request.param == "astjax" else _served_core()


def test_every_name_of_jax_core_is_there_and_the_same_object(core):
    missing = [n for n in JAX_CORE if not hasattr(core, n)]
    assert not missing
    served = _served_core()
    assert all(getattr(core, n) is getattr(served, n) for n in JAX_CORE)


def test_type_aliases_are_jaxs(core):
    assert core.ParamDict == dict[str, typing.Any]
    assert core.Value is typing.Any
    assert astjax.extend.core.Trace is core.Trace
    assert core.ensure_compile_time_eval is astjax.ensure_compile_time_eval


def test_tracer_and_shaped_array(core):
    seen = []

    def f(x):
        seen.append(isinstance(x, core.Tracer))
        return x

    astjax.jit(f)(1.0)
    f(jnp.ones(1))
    astjax.grad(f)(1.0)
    astjax.vmap(f)(jnp.ones(2))
    assert seen == [True, False, True, True]
    a = core.ShapedArray((2, 3), jnp.int32)
    assert (a.shape, a.dtype, a.weak_type) == ((2, 3), np.dtype("int32"), False)
    assert isinstance(a, core.AbstractValue)
    assert str(core.ShapedArray((2,), jnp.float32, weak_type=True)) == "~float32[2]"
    assert (core.min_dim(2, 3), core.max_dim(2, 3)) == (2, 3)


def test_eval_jaxpr_binds_the_equations_so_it_transforms(core):
    closed = astjax.make_jaxpr(lambda a: a * a + 1)(1.0)

    def f(x):
        return core.eval_jaxpr(closed.jaxpr, closed.consts, x)[0]

    assert float(f(2.0)) == 5.0
    assert float(astjax.jit(f)(3.0)) == 10.0
    assert float(astjax.grad(f)(3.0)) == 6.0
    assert astjax.make_jaxpr(f)(1.0).eqns[0].primitive.name == "mul"
    out = core.eval_jaxpr(closed.jaxpr, closed.consts, 2.0, propagate_source_info=False)
    assert float(out[0]) == 5.0


def test_eval_context_evaluates_known_values_now_inside_jit(core):
    kinds = []

    @astjax.jit
    def f(x):
        with core.eval_context():
            y = jnp.sin(3.0)
            z = astjax.jit(lambda a: a * 2)(jnp.float32(3.0))
            k = astjax.random.normal(astjax.random.key(0), (2,))
            kinds.append([isinstance(v, core.Tracer) for v in (y, z, k)])
        return x + y + z

    assert np.isclose(float(f(1.0)), 1.0 + np.sin(3.0) + 6.0)
    assert kinds == [[False, False, False]]
    with core.eval_context():   # (outside any staging: the plain eager path)
        assert not isinstance(jnp.cos(1.0), core.Tracer)


def test_eval_context_with_a_staged_operand_is_jaxs_unexpected_tracer_error(core):
    @astjax.jit
    def f(x):
        with core.eval_context():
            return x + 1   # (JAX: UnexpectedTracerError)

    with pytest.raises(astjax.errors.UnexpectedTracerError, match="eval_context") as e:
        f(1.0)
    assert isinstance(e.value, AstjaxError)


def test_ensure_compile_time_eval_steers_python_control_flow(core):
    def g(x):
        with core.ensure_compile_time_eval():
            c = jnp.arange(3.0).sum()
            k = astjax.random.uniform(astjax.random.key(0), (2,))
            assert not isinstance(c, core.Tracer) and not isinstance(k, core.Tracer)
            if c > 2:
                x = x * c
        return x

    assert float(astjax.jit(g)(2.0)) == 6.0
    assert float(astjax.grad(g)(2.0)) == 3.0
    assert np.asarray(astjax.vmap(g)(jnp.ones(2))).tolist() == [3.0, 3.0]
