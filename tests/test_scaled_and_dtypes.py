"""`jax.nn`'s block-scaled products, the dtypes int1/uint1/float6_e2m3fn/float6_e3m2fn and
the gamma samplers on `random_gamma_p`, against JAX 0.10.2's values stored by
tests/oracle/record_scaled_and_dtypes.py (scaled_and_dtypes.json)."""
import re

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import dtypes, errors, nn

from oracle.record_scaled_and_dtypes import (DTYPES, EXPRS, GAMMA, SCALED, gamma_env,
                                             run_case_ext, run_code, scaled_inputs)
from oracle import compare

STORED = compare.load("scaled_and_dtypes")
# JAX raises AssertionError (a bare `assert` in its quantizer) where astjax raises a
# located ValueError naming the block size
SAME_MEANING = {("AssertionError", "ArgumentValueError")}
# JAX's `jnp.zeros(3, jnp.uint1)` returns an *int1* array of bools (its full lowers a ui1
# constant as i1 and relabels); astjax lowers the uint1 broadcast and raises JAX's
# lowering ValueError for operations on uint1 instead of changing the dtype
DIVERGENT = {("uint1", "ones_like"): "JAXValueError"}


def _check(name, got, want, rtol):
    if "raises" in want:
        assert "raises" in got, (name, got)
        w, g = want["raises"], got["raises"]
        assert g == w or (w, g) in SAME_MEANING or g.endswith(w) or w in _bases(g), (name, g, w)
        return
    assert "raises" not in got, (name, got)
    if "text" in want or "value" in want:
        assert got == want, name
        return
    if "arrays" not in want:
        assert got == want, name
        return
    assert len(got["arrays"]) == len(want["arrays"]), name
    for g, w in zip(got["arrays"], want["arrays"]):
        assert (g["dtype"], g["shape"]) == (w["dtype"], w["shape"]), name
        # a result that cancels (a small entry of a sum of large products) carries the
        # rounding of its summands, which differs between CPU models' dot kernels: the
        # absolute tolerance scales with the array's largest entry
        scale = float(np.max(np.abs(np.asarray(w["values"], np.float64)), initial=1.0))
        np.testing.assert_allclose(g["values"], w["values"], rtol=rtol,
                                   atol=rtol * scale, err_msg=name)


def _bases(cls_name):
    cls = getattr(errors, cls_name, None)
    return {c.__name__ for c in cls.__mro__} if isinstance(cls, type) else set()


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("expr", sorted(EXPRS))
def test_dtype_matches_jax(dtype_name, expr):
    got = run_case_ext(jnp, astjax, dtype_name, EXPRS[expr])
    want = STORED[f"dtype/{dtype_name}/{expr}"]
    if (dtype_name, expr) in DIVERGENT:
        assert got == {"raises": DIVERGENT[dtype_name, expr]}, got
        return
    if "values" in want and "values" in got:
        assert got["dtype"] == want["dtype"], (expr, got, want)
        assert got["values"] == want["values"], (expr, got, want)
    else:
        _check(expr, got, want, 0)


@pytest.fixture(scope="module")
def scaled_env():
    return scaled_inputs(jnp, astjax, nn)


@pytest.mark.parametrize("name", sorted(SCALED))
def test_scaled_matches_jax(scaled_env, name):
    _check(name, run_code(scaled_env, SCALED[name]), STORED[f"scaled/{name}"], 2e-6)


@pytest.mark.parametrize("name", sorted(GAMMA))
def test_gamma_matches_jax(name):
    got, want = run_code(gamma_env(jnp, astjax), GAMMA[name]), STORED[f"gamma/{name}"]
    if "text" in want:
        # JAX's outer jit wrapper is its own, and astjax unwraps the typed key before the
        # primitive (`random_unwrap`): the primitive's line is JAX's up to variable names
        def line(text):
            [ln] = [ln.strip() for ln in text.splitlines() if "random_gamma" in ln]
            return re.sub(r"\b[a-z]+\b(?=[: ]|$)", "v", ln)
        assert line(got["text"]) == line(want["text"]), (got["text"], want["text"])
        return
    _check(name, got, want, 2e-6)


def test_uint1_operation_is_a_located_value_error():
    x = astjax.device_put(np.array([1, 0, 1], jnp.uint1))
    with pytest.raises(ValueError) as info:
        astjax.jit(lambda a: a + a)(x)
    assert isinstance(info.value, errors.AstjaxError)
    assert "test_scaled_and_dtypes.py" in str(info.value) and "ui1" in str(info.value)


def test_narrow_promotion_messages_name_the_width():
    for dt, width in [(jnp.float6_e2m3fn, "6-bit"), (jnp.float4_e2m1fn, "4-bit"),
                      (jnp.float8_e5m2, "8-bit")]:
        with pytest.raises(dtypes.TypePromotionError, match=f"{width} floats"):
            jnp.promote_types(dt, jnp.float32)


def test_new_dtypes_are_public_names():
    for name in DTYPES:
        assert getattr(jnp, name).dtype == np.dtype(name)
        assert hasattr(jnp, name)


def test_scaled_dot_general_grad_by_finite_differences(scaled_env):
    """The custom VJP's lhs cotangent against central differences of the quantized
    forward product, on a direction the quantization keeps (the product is piecewise
    constant in general, so the check uses the unquantized nvfp4 backward, which JAX
    defines as the plain product)."""
    l, r, nv = scaled_env["l"], scaled_env["r"], scaled_env["nv"]
    dn = (((2,), (2,)), ((0,), (0,)))
    g = astjax.grad(lambda a: jnp.sum(nn.scaled_dot_general(a, r, dn, configs=[nv] * 3)))(l)
    plain = astjax.grad(lambda a: jnp.sum(astjax.lax.dot_general(a, r, dn)))(l)
    np.testing.assert_allclose(np.asarray(g), np.asarray(plain), rtol=1e-5)


def test_scaled_matmul_vmap_matches_loop(scaled_env):
    x, y, xs, ys = (scaled_env[k] for k in ("x", "y", "xs", "ys"))
    batched = astjax.vmap(nn.scaled_matmul)(x[None], y[None], xs[None], ys[None])
    np.testing.assert_array_equal(np.asarray(batched)[0], np.asarray(nn.scaled_matmul(x, y, xs, ys)))


def test_jit_keeps_bfloat16_product_rounding(scaled_env):
    """dot_general of bfloat16 operands into float32 is one mixed-type dot, as JAX lowers
    it: converting the operands first let XLA drop the rounding of the bfloat16 products
    feeding it, so jit(scaled_matmul) differed from eager and from JAX."""
    x, y, xs, ys = (scaled_env[k] for k in ("x", "y", "xs", "ys"))
    want = STORED["scaled/matmul_f32_blocks"]["arrays"][0]["values"]
    got = np.asarray(astjax.jit(nn.scaled_matmul)(x, y, xs, ys), np.float64).ravel()
    np.testing.assert_array_equal(got, want)


def test_float6_runtime_errors_are_jax_runtime_errors_located():
    """jaxlib's CPU runtime has no float6 buffers or kernels: JAX raises JaxRuntimeError
    (the recorded cases above); astjax raises a subclass located at the user's line."""
    def f(x):
        y = x.astype(jnp.float6_e2m3fn)
        return y.astype(jnp.float32)
    with pytest.raises(errors.JaxRuntimeError) as info:
        astjax.jit(f)(jnp.ones(3))
    assert isinstance(info.value, errors.AstjaxError)
    assert "y = x.astype(jnp.float6_e2m3fn)" in str(info.value)
    with pytest.raises(errors.JaxRuntimeError) as info:
        astjax.device_put(np.zeros(2, jnp.float6_e3m2fn))
    assert "test_scaled_and_dtypes.py" in str(info.value)
