"""Host callbacks (`pure_callback`, `io_callback`, `jax.debug.print/callback`):
called with the run-time values under jit, vmap (per vmap_method), grad and inside
loops; kept or dropped as dead code by their effect; errors as JAX's."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import debug, lax
from astjax.callbacks_api import io_callback
from astjax.errors import DifferentiationError, NotImplementedInAstjaxError

# A lambda passed as a callback runs on the host with NumPy values, yet the front
# end's side-effect analysis still flags its `.append` (a known false positive).
pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")


def _sin_cb(x):
    return astjax.pure_callback(lambda a: np.sin(a), astjax.ShapeDtypeStruct(x.shape, x.dtype), x)


def test_pure_callback_eager_jit_and_source():
    x = jnp.array([0.0, 1.0, 2.0])
    f = lambda x: _sin_cb(x) + x
    want = np.sin(np.asarray(x)) + np.asarray(x)
    np.testing.assert_allclose(f(x), want, rtol=1e-6)
    np.testing.assert_allclose(astjax.jit(f)(x), want, rtol=1e-6)
    assert "xla_ffi_python_cpu_callback" in astjax.jit(f).lower(x).as_text()
    np.testing.assert_allclose(astjax.source_function(f, x)(x), want, rtol=1e-6)


def test_pure_callback_pytrees_and_dtype_cast():
    def f(x):
        out = astjax.pure_callback(lambda d: {"a": d["x"] * 2.0, "b": d["x"].sum()},
                                   {"a": astjax.ShapeDtypeStruct((3,), jnp.float32),
                                    "b": astjax.ShapeDtypeStruct((), jnp.float32)}, {"x": x})
        return out["a"] + out["b"]
    np.testing.assert_allclose(astjax.jit(f)(jnp.ones(3)), [5.0, 5.0, 5.0])


def test_pure_callback_vmap_methods():
    xs = jnp.arange(6.0).reshape(2, 3)
    calls = []

    def cb(a):
        calls.append(a.shape)
        return np.sin(a)
    for method, shapes in (("sequential", [(3,), (3,)]), ("expand_dims", [(2, 3)])):
        calls.clear()
        g = lambda x: astjax.pure_callback(cb, astjax.ShapeDtypeStruct(x.shape, x.dtype), x,
                                           vmap_method=method)
        np.testing.assert_allclose(astjax.jit(astjax.vmap(g))(xs), np.sin(np.asarray(xs)),
                                   rtol=1e-6)
        assert calls == shapes
    with pytest.raises(NotImplementedInAstjaxError, match="vmap_method=None"):
        astjax.vmap(_sin_cb)(xs)


def test_pure_callback_has_no_derivative():
    with pytest.raises(DifferentiationError, match="Pure callbacks do not support JVP"):
        astjax.grad(lambda x: _sin_cb(x).sum())(jnp.ones(3))


def test_unused_pure_callback_is_dropped_io_callback_kept():
    seen = []

    def f(x):
        astjax.pure_callback(lambda a: seen.append("pure") or a, astjax.ShapeDtypeStruct((3,), jnp.float32), x)
        io_callback(lambda a: seen.append("io") or a, astjax.ShapeDtypeStruct((3,), jnp.float32), x)
        return x + 1.0
    astjax.jit(f)(jnp.ones(3))
    assert seen == ["io"]


def _printing(x):
    debug.print("x={x} s={}", x.sum(), x=x)
    return x * 2


def test_debug_print_under_jit_vmap_grad(capfd):
    astjax.jit(_printing)(jnp.arange(3.0))
    astjax.vmap(_printing)(jnp.arange(4.0).reshape(2, 2))
    g = astjax.grad(lambda x: _printing(x).sum())(jnp.arange(2.0))
    np.testing.assert_allclose(g, [2.0, 2.0])
    out = capfd.readouterr().out.splitlines()
    assert out == ["x=[0. 1. 2.] s=3.0", "x=[0. 1.] s=1.0", "x=[2. 3.] s=5.0", "x=[0. 1.] s=1.0"]


def _loop_print(x):
    for i in range(3):
        debug.print("i={} x={}", i, x)
        x = x * 2
    return x


def test_debug_print_inside_a_scanned_loop_and_cond(capfd):
    assert float(astjax.jit(_loop_print)(1.0)) == 8.0
    f = lambda x: lax.cond(x > 0, lambda v: (debug.print("pos {}", v), v)[1], lambda v: v, x)
    astjax.jit(f)(2.0)
    assert capfd.readouterr().out.splitlines() == ["i=0 x=1.0", "i=1 x=2.0", "i=2 x=4.0",
                                                    "pos 2.0"]


def test_debug_callback_and_errors(capfd):
    got = []
    astjax.jit(lambda x: (debug.callback(lambda a: got.append(float(a.sum())), x), x)[1])(jnp.ones(4))
    assert got == [4.0]
    with pytest.raises(IndexError):
        debug.print("{} {}", 1.0)
    with pytest.raises(KeyError):
        debug.print("{y}", x=1.0)
    with pytest.raises(TypeError):
        debug.callback(3)
