"""The small compatibility surfaces libraries import (served as `jax.*` by the alias):
each name does what JAX's does — `interpreters.ad.defjvp`/`deflinear2`, the batching
helpers, `jax.core.eval_jaxpr`, `custom_derivatives.closure_convert` and its zero
types, `jax.experimental.layout`, `named_scope`/`named_call`, `traceback_util`,
`dispatch.wait_for_tokens`."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat import core as jcore
from astjax.compat._src import core as src_core
from astjax.compat import custom_derivatives as cd
from astjax.compat._src import dispatch, traceback_util
from astjax.compat.experimental.layout import Format, Layout
from astjax.extend.core import Primitive, ShapedArray
from astjax.interpreters import ad, batching


def _cube(x):
    return x * x * x


cube_p = Primitive("test_compat_cube")
cube_p.def_impl(_cube)
cube_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
ad.defjvp(cube_p, lambda t, x: 3.0 * x * x * t)
batching.primitive_batchers[cube_p] = lambda args, dims: (cube_p.bind(args[0]), dims[0])

twice_p = Primitive("test_compat_twice")
twice_p.def_impl(lambda x: 2.0 * x)
twice_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
ad.deflinear2(twice_p, lambda ct, x: [twice_p.bind(ct)])


def test_defjvp_and_deflinear2():
    x = jnp.array([1.0, 2.0])
    np.testing.assert_allclose(astjax.grad(lambda v: jnp.sum(cube_p.bind(v)))(x), [3.0, 12.0])
    np.testing.assert_allclose(astjax.grad(lambda v: jnp.sum(twice_p.bind(v) ** 2))(x),
                               [8.0, 16.0])
    np.testing.assert_allclose(astjax.vmap(lambda v: cube_p.bind(v))(x), [1.0, 8.0])


def test_batching_helpers():
    x = jnp.arange(6.0).reshape(2, 3)
    assert batching.moveaxis(x, 0, 1).shape == (3, 2)
    assert batching.bdim_at_front(x, 1, 3).shape == (3, 2)
    assert batching.bdim_at_front(x, batching.not_mapped, 4).shape == (4, 2, 3)
    np.testing.assert_allclose(batching.broadcast(x, 5, 1)[:, 3], x)


def test_core_eval_jaxpr_and_jaxprs_in_params():
    closed = astjax.make_jaxpr(lambda v: astjax.lax.cond(v > 0, lambda u: u * 2.0,
                                                         lambda u: -u, v))(1.0)
    out = jcore.eval_jaxpr(closed.jaxpr, closed.consts, 3.0)
    assert float(out[0]) == 6.0
    assert len(list(src_core.subjaxprs(closed.jaxpr))) == 2
    assert isinstance(src_core.raise_to_shaped(ShapedArray((2,), np.float32)), ShapedArray)


def test_closure_convert_makes_closed_over_values_arguments():
    def outer(y):
        def f(x):
            return x * y
        conv, consts = cd.closure_convert(f, 1.0)
        assert len(consts) == 1
        return conv(2.0, *consts)
    assert float(astjax.jit(outer)(3.0)) == 6.0
    assert float(astjax.grad(outer)(3.0)) == 2.0
    z = cd.SymbolicZero.from_primal_value(jnp.ones(3))
    assert z.shape == (3,) and not z
    assert cd.zero_from_primal(jnp.ones(2)).tolist() == [0.0, 0.0]
    assert isinstance(cd.zero_from_primal(jnp.ones(2), symbolic_zeros=True), cd.SymbolicZero)


def test_layout_naming_and_traceback_util():
    assert Format(Layout((1, 0)), None) == Format(Layout((1, 0)))
    assert Format(Layout((1, 0))) != Format(Layout((0, 1)))
    from astjax.naming import current_name_stack
    with astjax.named_scope("outer"):
        with astjax.named_scope("inner"):
            assert str(current_name_stack()) == "outer/inner"
    assert str(current_name_stack()) == ""
    seen = []
    f = astjax.named_call(lambda: seen.append(str(current_name_stack())), name="blk")
    f()
    assert seen == ["blk"]
    with pytest.raises(TypeError):
        astjax.named_scope(3)
    traceback_util.register_exclusion("/nowhere/")
    wrapped = traceback_util.api_boundary(len)   # (filters tracebacks: test_flax_suite_fixes)
    assert wrapped.__wrapped__ is len and wrapped([1, 2]) == 2
    traceback_util._exclude_paths.remove("/nowhere/")
    assert dispatch.wait_for_tokens() is None
