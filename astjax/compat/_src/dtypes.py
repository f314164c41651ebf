"""`jax._src.dtypes`: JAX's internal dtype module, as far as libraries use it."""
from astjax.dtypes import (TypePromotionError, bfloat16, canonicalize_dtype, extended,  # noqa: F401
                           float0, issubdtype, itemsize_bits, prng_key, result_type,
                           scalar_type_of)
from astjax.dtypes import dtype  # noqa: F401

ExtendedDType = extended
