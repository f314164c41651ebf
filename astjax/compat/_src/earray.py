"""`jax._src.earray`: arrays of a user extended dtype (`EArray`), as flax's fp8 module
imports it."""
from astjax.primitives.edtypes import EArray  # noqa: F401

__all__ = ["EArray"]
