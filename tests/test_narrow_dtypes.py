"""JAX's narrow dtypes -- float8/float4 variants and 2-/4-bit integers -- as array
dtypes: creation, casts, arithmetic with Python scalars, jit, reductions and the
promotion rules (no implicit promotion path to any other dtype), compared with values
recorded from JAX 0.10.2 (tests/oracle/record_narrow_dtypes.py)."""
import builtins

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import dtypes
from astjax.errors import AstjaxError
from tests.oracle.record_narrow_dtypes import run_case, DTYPES, EXPRS
from oracle import compare

RECORDED = compare.load("narrow_dtypes")


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_matches_jax(key):
    dtype_name, expr = key.split("/")
    got = run_case(jnp, astjax, dtype_name, EXPRS[expr])
    want = RECORDED[key]
    if "raises" in want:
        if got.get("raises") == want["raises"]:   # JAX's own class name (TypePromotionError)
            return
        # or JAX's builtin class, raised as astjax's located subclass of it
        with pytest.raises(getattr(builtins, want["raises"])) as info:
            eval(EXPRS[expr], {"jnp": jnp, "jax": astjax, "dt": getattr(jnp, dtype_name)})
        assert isinstance(info.value, AstjaxError), got
        return
    assert got.get("dtype") == want["dtype"], got
    if want["values"] is not None:
        np.testing.assert_array_equal(got["values"], want["values"])


def test_every_dtype_recorded():
    assert {k.split("/")[0] for k in RECORDED} == set(DTYPES)
    # JAX 0.10.2 cannot sum 2-/4-bit integers with its default integer promotion
    assert all(RECORDED[f"{d}/sum"] == {"raises": "ValueError"}
               for d in ("int2", "int4", "uint2", "uint4"))


@pytest.mark.parametrize("fn", [jnp.sum, jnp.prod, jnp.nansum, lambda x: x.sum(),
                                astjax.jit(lambda x: jnp.sum(x))])
def test_sum_of_4bit_ints_raises_as_jax(fn):
    """JAX 0.10.2 raises ValueError("Invalid integer data type 'V'.") picking sum's
    accumulator for a 2-/4-bit integer (np.iinfo); astjax raises the same class, with
    the way out in the hint."""
    with pytest.raises(ValueError, match="Invalid integer data type 'V'") as info:
        fn(jnp.array([3, 4], jnp.int4))
    assert isinstance(info.value, AstjaxError)
    assert "promote_integers=False" in str(info.value)


def test_sum_of_4bit_ints_with_promote_integers_false_or_a_dtype():
    # values from JAX 0.10.2: the accumulator is int4 (wrapping) or the given dtype
    x = jnp.array([3, 4], jnp.int4)
    for got, want in [(jnp.sum(x, promote_integers=False), 7),
                      (jnp.prod(x, promote_integers=False), -4),
                      (jnp.sum(x, dtype=jnp.int32), 7)]:
        assert int(got) == want
    assert jnp.sum(x, promote_integers=False).dtype == jnp.int4
    assert jnp.sum(x, dtype=jnp.int32).dtype == jnp.int32
    # wider small ints keep JAX's promotion rules: int8 wraps in int8 when not promoted
    i8 = jnp.array([100, 100], jnp.int8)
    assert jnp.sum(i8, promote_integers=False).dtype == jnp.int8
    assert int(jnp.sum(i8, promote_integers=False)) == -56 and int(jnp.sum(i8)) == 200
    assert jnp.sum(jnp.array([True, True]), promote_integers=False).dtype == jnp.int32


# (dtype, x64) -> the dtype of jnp.sum / jnp.prod of such an array, from JAX 0.10.2: integers
# narrower than the default integer accumulate in it (int32 and uint32 too under x64)
SUM_DTYPES = {("int8", False): "int32", ("int32", False): "int32", ("uint16", False): "uint32",
              ("uint32", False): "uint32", ("bool", False): "int32",
              ("int8", True): "int64", ("int32", True): "int64", ("uint16", True): "uint64",
              ("uint32", True): "uint64", ("bool", True): "int64"}


@pytest.mark.parametrize("dtype,x64", sorted(SUM_DTYPES))
def test_sum_and_prod_accumulate_in_the_default_integer(dtype, x64):
    with astjax.enable_x64(x64):
        x = np.array([3, 5, 1], dtype)
        for fn in (jnp.sum, jnp.prod, astjax.jit(jnp.sum)):
            assert fn(x).dtype == SUM_DTYPES[dtype, x64], fn
        assert int(jnp.sum(x)) == int(x.astype(np.int64).sum())


def test_printed_jaxpr_uses_jax_short_names():
    text = str(astjax.make_jaxpr(lambda a: a * 2)(jnp.ones(2, jnp.float8_e4m3fn)))
    assert text == "{ lambda ; a:f8_e4m3fn[2]. let b:f8_e4m3fn[2] = mul a 2.0:f8_e4m3fn[] in (b,) }"
    assert dtypes.short_name(jnp.int4) == "i4" and dtypes.short_name(jnp.uint2) == "u2"


def test_no_implicit_promotion_message():
    with pytest.raises(dtypes.TypePromotionError, match="8-bit floats do not support implicit"):
        jnp.ones(2, jnp.float8_e5m2) + jnp.ones(2, jnp.float16)
    with pytest.raises(dtypes.TypePromotionError, match="4-bit integers do not support"):
        jnp.promote_types(jnp.int4, jnp.int8)


def test_lowered_element_types():
    text = astjax.jit(lambda a, b: (a, b)).lower(jnp.ones(2, jnp.float8_e4m3fn),
                                                 jnp.ones(2, jnp.uint4)).as_text()
    assert "tensor<2xf8E4M3FN>" in text and "tensor<2xui4>" in text
