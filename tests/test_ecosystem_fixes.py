"""Regressions found by running the ecosystem's own test suites on astjax (issue 16),
each checked against what JAX 0.10.2 gives."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.scipy.special import logsumexp


def test_logsumexp_terms_with_zero_b_have_no_derivative():
    # optax sigmoid_focal_loss's Hessian at extreme logits (losses/_classification_test):
    # a term with b == 0 used to contribute 0 * inf to the second derivative
    labels = jnp.array([0.9, 1.0, 0.0])

    def f(x):
        lp, lq = astjax.nn.log_sigmoid(x), astjax.nn.log_sigmoid(-x)
        return jnp.sum(logsumexp(jnp.stack([lp, lq], -1), axis=-1,
                                 b=jnp.stack([1 - labels, labels], -1)))
    x = jnp.array([100.0, 50.0, -50.0])
    h = np.asarray(astjax.hessian(f)(x))
    assert np.all(np.isfinite(h))
    # JAX: [0, -0, 0]; the exact values are -sigmoid(x) sigmoid(-x) (0, -1.9e-22, -1.9e-22)
    np.testing.assert_allclose(np.diag(h), 0.0, atol=1e-21)
    np.testing.assert_allclose(astjax.grad(f)(x), [0.0, -1.0, 1.0])
    # the value is unchanged: zero-weighted terms were never part of the sum
    np.testing.assert_allclose(logsumexp(jnp.array([1.0, 2.0]), b=jnp.array([0.0, 2.0])),
                               2.0 + np.log(2.0), rtol=1e-6)


def test_jit_with_shardings_all_none_is_plain_jit():
    # flax.nnx.jit passes out_shardings=(None, None, None): no layout is given, so no
    # mesh is needed (it raised "a partitioned program needs a mesh")
    f = astjax.jit(lambda x, y: (x + y, x * y, x), in_shardings=(None, None),
                   out_shardings=(None, None, None))
    out = f(jnp.arange(3.0), 2.0)
    np.testing.assert_allclose(out[1], [0.0, 2.0, 4.0])


# ---- found by chex's own test suite (tests/ecosystem/run_optax_tests.py --package chex)


def _sig_target(x, y=2, *, z):
    return x


def test_transform_objects_have_their_functions_signature():
    # chex's fake_pmap reads `inspect.signature(jax.jit(f), follow_wrapped=False)`: JAX's
    # jitted function exposes f's; astjax's objects (with `__get__`) looked like builtins
    import inspect
    want = inspect.signature(_sig_target)
    for wrap in (astjax.jit, astjax.vmap, astjax.pmap, astjax.grad):
        assert inspect.signature(wrap(_sig_target), follow_wrapped=False) == want
    assert repr(astjax.jit(_sig_target)) == f"<PjitFunction of {_sig_target!r}>"
    # chex's is_traceable (and assert_max_traces' misuse check) read the type's name
    assert type(astjax.jit(_sig_target)).__name__ == "PjitFunction"
    assert type(astjax.pmap(_sig_target)).__name__ == "PmapFunction"


def test_vmap_runs_under_disable_jit():
    # chex.fake_jit + fake_pmap: vmap under `disable_jit` recursed without end
    x = jnp.arange(3.0)
    with astjax.disable_jit():
        np.testing.assert_allclose(astjax.vmap(lambda v: v * 2.0)(x), [0.0, 2.0, 4.0])
        np.testing.assert_allclose(astjax.jit(astjax.vmap(lambda v: v + 1.0))(x), [1.0, 2.0, 3.0])


def test_jax_src_xla_bridge_backends_as_chex_reads_them():
    # chex's set_n_cpu_devices reads `jax._src.xla_bridge._backends` without importing it
    from astjax.codegen import runtime
    from astjax.compat import _src
    bridge = _src.xla_bridge   # an attribute read imports the module, as JAX's import did
    jnp.ones(1).block_until_ready()
    assert dict(bridge._backends) == {runtime.platform(): runtime.client()}
    assert bridge._backends.get(runtime.platform()) is runtime.client()
    assert bridge.backends_are_initialized() and bridge.get_backend() is runtime.client()
    assert bridge.get_backend(runtime.platform()) is runtime.client()
    with pytest.raises(RuntimeError, match="Unknown backend: 'tpu'"):
        bridge.get_backend("tpu")
    try:
        _src.no_such_module
    except AttributeError:
        pass
    else:
        raise AssertionError("no AttributeError")
