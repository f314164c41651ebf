"""Names JAX programs and libraries reach for at import or call time, each checked
against JAX 0.10.2's behaviour: `jax.dtypes` extras, `lax.cond(..., operand=)`."""
import ml_dtypes
import numpy as np
import pytest

import astjax
from astjax import dtypes, lax


def test_dtypes_public_names():
    assert dtypes.canonicalize_dtype(np.float64) == np.float32 or astjax.config.x64_enabled
    assert dtypes.scalar_type_of(1) is int and dtypes.scalar_type_of(np.float32(1)) is float
    assert dtypes.scalar_type_of(True) is bool and dtypes.scalar_type_of(1j) is complex
    assert dtypes.itemsize_bits(np.float32) == 32 and dtypes.itemsize_bits(np.bool_) == 8
    assert dtypes.itemsize_bits(ml_dtypes.int4) == 4
    assert not dtypes.issubdtype(np.uint32, dtypes.prng_key)
    assert dtypes.issubdtype(dtypes.prng_key, dtypes.extended)
    assert issubclass(dtypes.TypePromotionError, ValueError)
    assert dtypes.canonicalize_dtype(dtypes.prng_key, allow_extended_dtype=True) is dtypes.prng_key
    with pytest.raises(ValueError):
        dtypes.canonicalize_dtype(dtypes.prng_key)


def _branches(x):
    return lax.cond(x > 0, lambda v: v * 2.0, lambda v: -v, operand=x)


def test_cond_legacy_operand_keyword():
    assert float(_branches(3.0)) == 6.0 and float(astjax.jit(_branches)(-2.0)) == 2.0
    with pytest.raises(TypeError, match="no other operands"):
        lax.cond(True, lambda a, b: a, lambda a, b: b, 1.0, operand=2.0)
