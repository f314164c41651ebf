"""The IR core: the printer (exact JAX syntax), `check_jaxpr` (the executable spec)
on staged and on deliberately broken jaxprs, the NumPy reference evaluator against
compiled results, and the runtime `Array` (repr, device_put/get, block_until_ready)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core, lax
from astjax.core import ClosedJaxpr, Eqn, Jaxpr, JaxprTypeError, Literal, ShapedArray, Var

# --------------------------------------------------------------------- the seeds' IR


def log2(x):
    ln_x = lax.log(x)
    ln_2 = lax.log(2.0)
    return ln_x / ln_2


LOG2_JAXPR = """\
{ lambda ; a:f32[]. let
    b:f32[] = log a
    c:f32[] = log 2.0:f32[]
    d:f32[] = div b c
  in (d,) }"""


def dot_plus_one(x, y):
    return jnp.dot(x + 1, y + 1)


DOT_JAXPR = """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,3] = add a 1.0:f32[]
    d:f32[3,4] = add b 1.0:f32[]
    e:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] c d
  in (e,) }"""


def test_log2_prints_exactly_as_design():
    assert str(astjax.make_jaxpr(log2)(3.0)) == LOG2_JAXPR


def test_dot_prints_exactly_as_jax():
    x = np.ones((2, 3), np.float32)
    y = np.ones((3, 4), np.float32)
    assert str(astjax.make_jaxpr(dot_plus_one)(x, y)) == DOT_JAXPR


def test_jaxpr_of_jitted_function_is_one_jit_equation():
    """As JAX 0.10.2 prints it: one `jit` equation around the body."""
    assert str(astjax.make_jaxpr(astjax.jit(log2))(3.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=log2
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = log a
          d:f32[] = log 2.0:f32[]
          b:f32[] = div c d
        in (b,) }
    ] a
  in (b,) }"""


def test_weak_scalar_keeps_array_dtype():
    def f(x):
        return x * 2
    cj = astjax.make_jaxpr(f)(np.ones(3, np.float32))
    assert str(cj) == ("{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }")


# ------------------------------------------------------------------------ check_jaxpr

def _mlp(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def _params(sizes=(5, 4, 3), seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(m, n).astype(np.float32), rng.randn(n).astype(np.float32))
            for m, n in zip(sizes[:-1], sizes[1:])]


STAGED = [
    ("log2", log2, (3.0,)),
    ("dot", dot_plus_one, (np.ones((2, 3), np.float32), np.ones((3, 4), np.float32))),
    ("mlp", _mlp, (_params(), np.ones((2, 5), np.float32))),
    ("reshape", lambda x: x.reshape(jnp.array(x.shape).prod()), (np.ones((2, 3), np.float32),)),
    ("methods", lambda x: (x.T.sum(axis=0), x.astype(jnp.int32), x[0, 1:]),
     (np.arange(6, dtype=np.float32).reshape(2, 3),)),
]


@pytest.mark.parametrize("name,fn,args", STAGED, ids=[s[0] for s in STAGED])
def test_check_jaxpr_accepts_staged(name, fn, args):
    cj = astjax.make_jaxpr(fn)(*args)
    core.check_jaxpr(cj)
    core.check_jaxpr(cj.jaxpr)


@pytest.mark.parametrize("name,fn,args", STAGED, ids=[s[0] for s in STAGED])
def test_eval_jaxpr_matches_compiled(name, fn, args):
    cj = astjax.make_jaxpr(fn)(*args)
    leaves = astjax.tree_util.tree_leaves(args)
    ref = core.eval_reference(cj.jaxpr, cj.consts, *[np.asarray(x) for x in leaves])
    got = astjax.tree_util.tree_leaves(astjax.jit(fn)(*args))
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        g = np.asarray(g)
        assert np.shape(r) == g.shape
        np.testing.assert_allclose(np.asarray(r, g.dtype), g, rtol=1e-5, atol=1e-6)


F32 = ShapedArray((), np.float32)
V3 = ShapedArray((3,), np.float32)


def _prim(name):
    return core.primitives[name]


def test_check_jaxpr_rejects_use_before_bind():
    a, b, c = Var(F32), Var(F32), Var(F32)
    jaxpr = Jaxpr([], [a], [c], [Eqn(_prim("add"), [a, b], [c], {})])
    with pytest.raises(JaxprTypeError, match="used before it is bound"):
        core.check_jaxpr(jaxpr)


def test_check_jaxpr_rejects_double_binding():
    a, b = Var(F32), Var(F32)
    jaxpr = Jaxpr([], [a], [b], [Eqn(_prim("neg"), [a], [b], {}),
                                 Eqn(_prim("neg"), [a], [b], {})])
    with pytest.raises(JaxprTypeError, match="bound twice"):
        core.check_jaxpr(jaxpr)


def test_check_jaxpr_rejects_wrong_output_type():
    a, b = Var(F32), Var(V3)
    jaxpr = Jaxpr([], [a], [b], [Eqn(_prim("neg"), [a], [b], {})])
    with pytest.raises(JaxprTypeError, match="rule gives f32"):
        core.check_jaxpr(jaxpr)


def test_check_jaxpr_rejects_ill_typed_equation():
    a, b, c = Var(V3), Var(ShapedArray((4,), np.float32)), Var(V3)
    jaxpr = Jaxpr([], [a, b], [c], [Eqn(_prim("add"), [a, b], [c], {})])
    with pytest.raises(JaxprTypeError):
        core.check_jaxpr(jaxpr)


def test_check_jaxpr_rejects_unbound_output_and_bad_literal():
    a, b = Var(F32), Var(F32)
    with pytest.raises(JaxprTypeError, match="used before it is bound"):
        core.check_jaxpr(Jaxpr([], [a], [b], []))
    bad = Literal(np.ones(2, np.float32), F32)
    c = Var(F32)
    with pytest.raises(JaxprTypeError, match="wrong shape"):
        core.check_jaxpr(Jaxpr([], [a], [c], [Eqn(_prim("add"), [a, bad], [c], {})]))


def test_check_jaxpr_rejects_broken_staged_jaxpr():
    cj = astjax.make_jaxpr(log2)(3.0)
    eqns = list(cj.jaxpr.eqns)
    broken = Jaxpr(cj.jaxpr.constvars, cj.jaxpr.invars, cj.jaxpr.outvars,
                   [eqns[2], eqns[0], eqns[1]])  # div before its operands exist
    with pytest.raises(JaxprTypeError, match=r"equation 0 \(div\)"):
        core.check_jaxpr(ClosedJaxpr(broken, cj.consts))


def test_source_info_points_at_user_line():
    cj = astjax.make_jaxpr(log2)(3.0)
    import inspect
    first = inspect.getsourcelines(log2)[1]
    lines = [e.source_info.line for e in cj.jaxpr.eqns]
    assert lines == [first + 1, first + 2, first + 3]
    assert cj.jaxpr.eqns[0].source_info.file == __file__
    assert cj.jaxpr.eqns[0].source_info.name == "ln_x"

# ------------------------------------------------------------------------- Array


def test_array_repr_like_jax():
    assert repr(jnp.array([1.0, 2.0])) == "Array([1., 2.], dtype=float32)"
    assert repr(astjax.device_put(1.0)) == "Array(1., dtype=float32, weak_type=True)"
    assert repr(jnp.array(1.0)) == "Array(1., dtype=float32, weak_type=True)"  # as JAX
    assert repr(jnp.array(1.0, jnp.float32)) == "Array(1., dtype=float32)"
    assert repr(jnp.array([1, 2, 3])) == "Array([1, 2, 3], dtype=int32)"
    assert repr(jnp.array(True)) == "Array(True, dtype=bool)"
    assert repr(jnp.zeros((2, 2))) == ("Array([[0., 0.],\n"
                                       "       [0., 0.]], dtype=float32)")
    assert str(jnp.array([1.0, 2.0])) == "[1. 2.]"


def test_array_attributes():
    x = astjax.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert isinstance(x, astjax.Array)
    assert (x.shape, x.dtype, x.ndim, x.size) == ((2, 3), np.float32, 2, 6)
    assert not x.weak_type
    np.testing.assert_array_equal(np.asarray(x), np.arange(6).reshape(2, 3))
    assert x[1, 2].item() == 5.0
    assert float(x[0, 1]) == 1.0 and int(x[1, 0]) == 3
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_device_put_applies_dtype_policy():
    x = astjax.device_put(np.ones(3, np.float64))
    assert x.dtype == np.float32
    i = astjax.device_put(np.ones(3, np.int64))
    assert i.dtype == np.int32
    assert astjax.device_put(3).aval == ShapedArray((), np.int32, True)
    assert astjax.device_put(True).dtype == np.bool_


def test_device_put_copies_host_memory():
    host = np.ones(3, np.float32)
    x = astjax.device_put(host)
    host[:] = 7
    np.testing.assert_array_equal(np.asarray(x), np.ones(3))


def test_device_put_pytree_and_device_get():
    tree = {"a": np.ones(2, np.float32), "b": (np.zeros(3, np.int32), 2.0)}
    on_dev = astjax.device_put(tree)
    assert isinstance(on_dev["a"], astjax.Array) and isinstance(on_dev["b"][0], astjax.Array)
    back = astjax.device_get(on_dev)
    assert isinstance(back["a"], np.ndarray)
    np.testing.assert_array_equal(back["b"][0], np.zeros(3))
    assert astjax.device_put(on_dev["a"]) is on_dev["a"]


def test_block_until_ready():
    x = astjax.device_put(np.ones((4, 4), np.float32))
    y = astjax.jit(lambda a: a @ a)(x)
    assert y.block_until_ready() is y
    tree = {"y": y, "n": 1}
    assert astjax.block_until_ready(tree) is tree
    assert y.is_ready()


def test_devices():
    devs = astjax.devices()
    assert len(devs) >= 1 and devs[0].platform == "cpu"
    assert astjax.default_backend() == "cpu"
    assert astjax.device_put(np.ones(2)).device == devs[0]


def test_bad_device_put():
    with pytest.raises(astjax.errors.ArgumentError):
        astjax.device_put("hello")


def test_eager_ops_run_on_device():
    x = jnp.array([1.0, 2.0, 3.0])
    y = (x * 2 + 1).sum()
    assert isinstance(y, astjax.Array)
    assert float(y) == 15.0


def test_primitive_decorators_and_rule_lookup():
    """A primitive's rules are its own slots; `core.rule` raises the one located
    error with the reason a kind was left out."""
    import numpy as np
    import pytest
    from astjax import core
    from astjax.errors import NotImplementedInAstjaxError
    from astjax.primitives.base import mark_unsupported

    twice_p = core.new_primitive("test_twice")

    @twice_p.def_impl
    def _impl(x):
        return 2 * x

    @twice_p.def_abstract_eval
    def _ae(a):
        return a

    mark_unsupported(twice_p, "batch", "a test primitive")
    closed = core.stage(lambda x: [twice_p.bind(x)], [core.ShapedArray((3,), np.float32)])
    out, = core.eval_closed(closed, np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(out, [0, 2, 4])
    assert core.rule(twice_p, "impl") is _impl
    assert core.rule(twice_p, "jvp", optional=True) is None
    with pytest.raises(NotImplementedInAstjaxError, match="vmap of `test_twice` is not "
                                                          "supported: a test primitive"):
        core.rule(twice_p, "batch")
    del core.primitives["test_twice"]
