"""`astjax.interpreters.xla` (JAX's `jax.interpreters.xla`): `apply_primitive`, the
impl rule libraries give a primitive that has a lowering —
`p.def_impl(functools.partial(xla.apply_primitive, p))` — so that binding it outside
any transformation compiles that one primitive and runs it; and
`canonicalize_dtype_handlers`, where a library registers how an instance of its own
type becomes the host array a `jit` argument or `device_put` copies to the device."""
from __future__ import annotations

import numpy as np

from .. import core
from .. import dtypes as _dtypes, value_tables as _value_tables
from ..codegen import runtime

__all__ = ["apply_primitive", "canonicalize_dtype_handlers"]


def apply_primitive(prim, *args, **params):
    """Run `prim` on `args` alone: compiled through its lowering rule (cached per
    signature) and executed; inside a transformation, an equation of the program."""
    if core.current_builder() is not None:
        return core.bind(prim, *args, **params)
    return runtime.eager_apply(prim, args, params)


def _canonical_array(x):
    """`x` as a NumPy array of the dtype astjax computes in (64-bit types narrowed
    without x64)."""
    arr = np.asarray(x)
    if arr.dtype not in _dtypes._SHORT:
        raise TypeError(f"Argument '{x!r:.60}' of type {type(x)} is not a valid JAX type.")
    return arr.astype(_dtypes.canonicalize(arr.dtype), copy=False)


class _CanonicalizeHandlers:
    """JAX 0.10.2's `canonicalize_dtype_handlers`: writing `table[T] = fn` registers
    `fn` for instances of `T` (`value_tables.canonicalize_value_handlers`); reading
    `table[T]`, for any `T`, gives the canonicalizer of an array-like value (NumPy
    array of the computing dtype), for a library to reuse for its own type."""

    def __getitem__(self, key):
        return _canonical_array

    def __setitem__(self, key, handler):
        _value_tables.canonicalize_value_handlers[key] = (
            handler if handler is not None else (lambda x: x))


canonicalize_dtype_handlers = _CanonicalizeHandlers()
