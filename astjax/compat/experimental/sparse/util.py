"""`jax.experimental.sparse.util`: the sparse module's efficiency error and warnings
(`bcoo_update_layout` raises or warns with them when a layout change would store many
explicit zeros), and the assertion error of operands JAX's sparse operations assert
against."""
from __future__ import annotations

from astjax.errors import AstjaxError as _AstjaxError
from astjax.errors import JAXValueError as _JAXValueError

__all__ = ["SparseEfficiencyError", "SparseEfficiencyWarning", "CuSparseEfficiencyWarning"]


class SparseEfficiencyError(_JAXValueError):
    """A sparse layout change that would be inefficient (a ValueError, as JAX's)."""
    default_hint = "pass on_inefficient='warn' or None to allow it"


class SparseEfficiencyWarning(UserWarning):
    """Warned for an inefficient sparse layout change (`on_inefficient='warn'`)."""


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
    """Warned where JAX's GPU kernels would fall back from cuSPARSE."""


class _SparseAssertionError(_AstjaxError, AssertionError):
    """Operands a sparse operation does not take where JAX's fails an `assert` (the
    shapes and dtypes its abstract evaluation checks): an AssertionError."""
