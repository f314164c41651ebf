"""`jax._src.state.types`: `AbstractRef`, the abstract value of a mutable array
reference (`jax.typeof(jax.new_ref(x))`). It is astjax's own (`astjax.ir.AbstractRef`,
also `jax.ref.AbstractRef`): libraries test `isinstance(jax.typeof(x), AbstractRef)`
to tell references from arrays (flax's nnx `is_array_ref`)."""
from __future__ import annotations

from astjax.ir import AbstractRef  # noqa: F401

__all__ = ["AbstractRef"]
