"""JAX's narrow dtypes -- float8/float4 variants and 2-/4-bit integers -- as array
dtypes: creation, casts, arithmetic with Python scalars, jit, reductions and the
promotion rules (no implicit promotion path to any other dtype), compared with values
recorded from JAX 0.10.2 (tests/oracle/record_narrow_dtypes.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import dtypes
from tests.oracle.record_narrow_dtypes import run_case, DTYPES, EXPRS

RECORDED = json.loads((Path(__file__).parent / "oracle" / "narrow_dtypes.json").read_text())
# Where JAX 0.10.2 fails inside itself, astjax does what JAX does for the wider types:
# `jnp.sum` of a 2-/4-bit integer array raises "Invalid integer data type 'V'" in JAX
# (np.iinfo of an ml_dtypes type, while picking the accumulator); astjax accumulates in
# the default integer type, as JAX does for int8.
# (for uint8, JAX's sum is uint32)
DIVERGES = {"int4/sum": {"dtype": "int32", "values": [6.0]},
            "int2/sum": {"dtype": "int32", "values": [-2.0]},  # arange(4) wraps to 0 1 -2 -1
            "uint4/sum": {"dtype": "uint32", "values": [6.0]},
            "uint2/sum": {"dtype": "uint32", "values": [6.0]}}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_matches_jax(key):
    dtype_name, expr = key.split("/")
    got = run_case(jnp, astjax, dtype_name, EXPRS[expr])
    want = DIVERGES.get(key, RECORDED[key])
    if "raises" in want:
        assert got.get("raises") == want["raises"], got
        return
    assert got.get("dtype") == want["dtype"], got
    if want["values"] is not None:
        np.testing.assert_array_equal(got["values"], want["values"])


def test_every_dtype_recorded():
    assert {k.split("/")[0] for k in RECORDED} == set(DTYPES)
    assert all(RECORDED[k] == {"raises": "ValueError"} for k in DIVERGES)


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
