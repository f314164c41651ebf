"""Derivatives of max/min-like reductions at NaN, +-inf and ties, against JAX 0.10.2's
stored values (`tests/oracle/record_nan_extrema.py`).

JAX's rule for `reduce_max`/`reduce_min` divides the tangent mass over the elements
equal to the result; at a NaN result none is, so op by op its `jvp` and `grad` are NaN
everywhere. Under `jax.jit` XLA rewrites `mul(g, convert(mask))` into a select and the
gradient becomes 0 there; astjax gives the NaN in both modes (the stored `grad_jit`
differs from `grad` only at a NaN result, which the last test pins)."""

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

from oracle.record_nan_extrema import (BATCHED, FUNCTIONS, INPUTS, ROWS, TANGENT,
                                       from_list)
from oracle import compare

ORACLE = compare.load("nan_extrema")
M = type("M", (), {"jnp": jnp, "lax": lax})
CASES = sorted(k.split(":", 1)[1] for k in ORACLE if k.startswith("cases:"))


def _fn(name):
    return lambda x, f=FUNCTIONS[name]: f(M, x)


def _same(got, want, what):
    np.testing.assert_allclose(np.asarray(got, np.float64).ravel(), from_list(want),
                               rtol=1e-6, atol=0, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("case", CASES)
def test_as_jax(case):
    fname, xname = case.split("/")
    want = ORACLE["cases:" + case]
    f = _fn(fname)
    x = jnp.array(INPUTS[xname], jnp.float32)
    _same(f(x), want["value"], "value")
    _same(astjax.grad(f)(x), want["grad"], "grad")
    _same(astjax.jit(astjax.grad(f))(x), want["grad"], "jit(grad)")
    _same(astjax.jvp(f, (x,), (jnp.array(TANGENT, jnp.float32),))[1], want["jvp"], "jvp")


@pytest.mark.parametrize("fname", BATCHED)
def test_vmap_grad_as_jax(fname):
    got = astjax.vmap(astjax.grad(_fn(fname)))(jnp.array(ROWS, jnp.float32))
    _same(got, ORACLE["batched:" + fname], "vmap(grad)")


def test_grad_of_max_at_nan_is_nan_inside_a_loop():
    """The NaN survives the one-hot location of a fully unrolled loop body (the
    property `test_ad_control.test_max_tangent_survives_a_fully_unrolled_loop` pins)."""
    def f(x):
        for _ in range(4):
            x = jnp.sin(x) + jnp.max(x) * 0.1
        return x.sum()
    g = astjax.jit(astjax.grad(f))(jnp.array([1.0, np.nan, 2.0]))
    assert np.isnan(np.asarray(g)).all()
    g = astjax.jit(astjax.grad(f))(jnp.array([1.0, 0.5, 2.0]))
    assert np.isfinite(np.asarray(g)).all()


def test_jax_jit_differs_only_at_a_nan_result():
    """The one place astjax follows JAX's op-by-op answer, not its `jit` one."""
    for key, v in ORACLE.items():
        if key.startswith("cases:") and v["grad"] != v["grad_jit"]:
            assert "nan" in v["value"], key
            for eager, jitted in zip(v["grad"], v["grad_jit"]):
                assert eager == jitted or (eager == "nan" and jitted == 0.0), key
