"""Regressions found by running equinox's and dm-haiku's own test suites on astjax
(2026-11-29, eco17), each checked against what JAX 0.10.2 gives; none needs the
libraries."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


# ---- a custom_jvp / custom_vjp call's rules, kept in its equation, held the staged
# operands (haiku integration/check_tracer_leaks_test: hk.VanillaRNN's relu, a
# custom_jvp, under hk.dynamic_unroll): `check_tracer_leaks` reported them, and every
# cached jaxpr with such a call kept its whole staging alive. JAX: no leak.
@astjax.custom_jvp
def _relu(x):
    return jnp.maximum(x, 0.0)


_relu.defjvp(lambda p, t: (_relu(p[0]), t[0] * (p[0] > 0)))


@astjax.custom_vjp
def _sin(x):
    return jnp.sin(x)


_sin.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, c: (c * r,))


def _plain(h):
    return lambda x: h(jnp.sin(x)) * 2


def _in_scan(h):
    def run(x):
        w = jnp.sin(x)
        return astjax.lax.scan(lambda c, t: (h(c * w + t), c), jnp.zeros(3), jnp.ones((4, 3)))
    return run


@pytest.mark.parametrize("fun", [_plain(_relu), _in_scan(_relu), _plain(_sin),
                                 _in_scan(_sin)],
                         ids=["jvp", "jvp-scan", "vjp", "vjp-scan"])
def test_custom_rules_keep_no_staged_values(fun):
    x = jnp.array([0.5, -1.0, 2.0])
    with astjax.check_tracer_leaks(True):
        astjax.eval_shape(fun, x)
        out = astjax.jit(fun)(x)
        g = astjax.grad(lambda x: astjax.tree_util.tree_leaves(fun(x))[0].sum())(x)
    # and the rules still run on what the call holds
    want = astjax.tree_util.tree_leaves(fun(x))[0]
    np.testing.assert_allclose(astjax.tree_util.tree_leaves(out)[0], want, rtol=1e-6)
    assert np.all(np.isfinite(np.asarray(g)))


def test_custom_rules_values_after_staging():
    # the rules run after the staging that made them has finished (grad of a jit)
    x = jnp.array([0.5, -1.0, 2.0])
    g1 = astjax.grad(lambda x: astjax.jit(_plain(_relu))(x).sum())(x)
    np.testing.assert_allclose(g1, 2 * np.cos(x) * (np.sin(x) > 0), rtol=1e-6)
    g2 = astjax.grad(lambda x: astjax.jit(_plain(_sin))(x).sum())(x)
    np.testing.assert_allclose(g2, 2 * np.cos(np.sin(x)) * np.cos(x), rtol=1e-6)


# ---- a ClosedJaxpr reads `constvars` / `invars` / `outvars` through to its jaxpr, as
# JAX's: haiku's jaxpr_info walks a custom_jvp_call's `call_jaxpr` (a ClosedJaxpr in
# JAX 0.10.2 too) as a Jaxpr (integration/jaxpr_info_test over hk.nets.MLP, whose relu
# is a custom_jvp: AttributeError)
def test_closed_jaxpr_reads_its_jaxpr_binders():
    w = jnp.array([1.0, -2.0, 3.0])
    closed = astjax.make_jaxpr(lambda x: _relu(x * w))(jnp.ones(3))
    assert closed.invars == closed.jaxpr.invars and len(closed.invars) == 1
    assert closed.outvars == closed.jaxpr.outvars
    assert closed.constvars == closed.jaxpr.constvars
    (eqn,) = [e for e in closed.eqns if e.primitive.name == "custom_jvp_call"]
    body = eqn.params["call_jaxpr"]
    assert [v.aval.shape for v in body.invars] == [(3,)]
    assert list(body.constvars) == list(body.jaxpr.constvars)
    assert len(body.outvars) == 1


# ---- a pmap inside another program (eval_shape, jit) whose function returns a Python
# scalar: astjax read `.shape` of the int (haiku summarise_test
# `test_jax_transformed_wrapper2`: eval_summary of a pmap'd apply whose module returns
# 1). JAX: a weakly typed array with the device axis.
@pytest.mark.parametrize("value, dtype", [(1, np.int32), (2.5, np.float32)])
def test_pmap_staged_python_scalar_result(value, dtype):
    f = astjax.pmap(lambda x: value)
    x = jnp.ones(1)
    s = astjax.eval_shape(f, x)
    assert (s.shape, s.dtype, s.weak_type) == ((1,), dtype, True)
    out = astjax.jit(lambda x: f(x) * 2)(x)
    np.testing.assert_array_equal(out, np.full(1, 2 * value, dtype))
    assert out.dtype == dtype
