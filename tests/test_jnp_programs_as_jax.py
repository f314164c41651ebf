"""jnp functions against JAX 0.10.2 where they used to differ silently: an explicit
float16/bfloat16 `dtype=` of a reduction is its accumulation dtype (no float32 upcast), a
`where=` mask must be boolean (JAX's ValueError), log10 / log2 build JAX's programs (so
give JAX's bits once XLA compiles them whole)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

X = np.linspace(-1.0, 2.0, 12, dtype=np.float32).reshape(3, 4)


def _names(f, *args):
    return [e.primitive.name for e in astjax.make_jaxpr(f)(*args).jaxpr.eqns]


def test_mean_with_a_half_dtype_accumulates_in_it():
    # JAX 0.10.2's jaxpr: convert to float16, reduce_sum, div (no float32 round trip)
    assert _names(lambda x: jnp.mean(x, axis=0, dtype=np.float16), X) == \
        ["convert_element_type", "reduce_sum", "div"]
    assert _names(lambda x: jnp.sum(x, dtype=jnp.bfloat16), X.astype(jnp.bfloat16)) == \
        ["reduce_sum"]
    # without dtype= half precision still accumulates in float32, as JAX's
    assert "convert_element_type" in _names(lambda x: jnp.mean(x), X.astype(np.float16))
    # JAX 0.10.2's bits (a float32 mean rounded to float16 differs in two places)
    for mean in (jnp.mean, astjax.jit(jnp.mean, static_argnames=("axis", "dtype"))):
        out = mean(X * np.float32(1.37) + np.float32(0.11), axis=0, dtype=np.float16)
        assert out.dtype == np.float16
        assert np.asarray(out).view(np.uint16).tolist() == [0x3382, 0x38de, 0x3bda, 0x3d6c]


@pytest.mark.parametrize("call", [
    lambda: jnp.sum(X, where=np.ones((3, 4), np.int32)),
    lambda: jnp.mean(X, where=1),
    lambda: jnp.any(X, where=np.ones(4, np.float32)),
    lambda: jnp.max(X, where=1.0, initial=0.0),
    lambda: jnp.var(X, where=np.ones((3, 4), np.int32)),
])
def test_a_where_mask_must_be_boolean(call):
    with pytest.raises(ValueError, match="where must be None or a boolean array"):
        call()
    with pytest.raises(astjax.errors.AstjaxError):
        call()


def test_log10_and_log2_are_jaxs_programs():
    # JAX 0.10.2: log10 multiplies by 1 / log(10) (a division gave other bits under jit),
    # log2 divides by log(2) computed by XLA, a complex value part by part
    f32, c64 = np.ones(3, np.float32), np.ones(3, np.complex64)
    assert _names(jnp.log10, f32) == ["log", "mul"]
    assert _names(jnp.log2, f32) == ["log", "log", "div"]
    assert _names(jnp.log10, c64) == ["log", "real", "imag", "mul", "mul", "complex"]
    assert _names(jnp.log2, c64) == ["log", "real", "imag", "log", "div", "div", "complex"]
    x = np.linspace(0.1, 9.0, 50, dtype=np.float32)
    want = [0xbf800000, 0xbf0ce193, 0xbeab185c, 0xbe4314cc]   # JAX 0.10.2 (a division: 0xbf7fffff first)
    for f in (jnp.log10, astjax.jit(jnp.log10)):
        assert np.asarray(f(x)).view(np.uint32)[:4].tolist() == want


def test_polyder_is_inexact_and_multiplies_once():
    # JAX 0.10.2: integer coefficients give float32; the m factors' product (taken in
    # the dtype) multiplies once (m multiplications round differently); m < 0 refused
    out = jnp.polyder(np.arange(4, dtype=np.int32))
    assert out.dtype == np.float32 and out.tolist() == [0.0, 2.0, 2.0]
    assert jnp.polyder(np.arange(4, dtype=np.int32), 0).dtype == np.float32
    out = jnp.polyder(np.arange(1.0, 31.0, dtype=np.float32), 9)
    # (nine multiplications give 0x54947ed7 third)
    assert np.asarray(out).view(np.uint32)[:3].tolist() == [0x54538a78, 0x5491e3ea,
                                                            0x54947ed6]
    with pytest.raises(ValueError, match="Order of derivative must be positive"):
        jnp.polyder(np.ones(3), -1)


def test_take_along_axis_none_wants_1d_indices():
    with pytest.raises(ValueError, match="must be 1D if axis=None"):
        jnp.take_along_axis(X, np.zeros((3, 4), np.int32), axis=None)
    assert jnp.take_along_axis(X, np.array([11, 0]), axis=None).tolist() == [2.0, -1.0]
