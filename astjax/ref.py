"""`jax.ref`: mutable array references. `new_ref(x)` makes one; `get`, `set`, `swap`,
`addupdate` read and write it (as `r[idx]`, `r[idx] = v`); `freeze` gives its value;
`empty_ref`/`free_ref` allocate and release. The primitives and the eager `Ref` live in
`astjax/primitives/state.py`; `transforms/discharge.py` turns staged references into
values before `jit`, `grad` and `vmap` transform the program."""
from __future__ import annotations

from .core import AbstractRef
from .primitives.state import (Ref, empty_ref, free_ref, freeze, new_ref,
                               ref_addupdate as addupdate, ref_get as get,
                               ref_set as set, ref_swap as swap)

__all__ = ["AbstractRef", "Ref", "addupdate", "free_ref", "freeze", "get", "new_ref",
           "empty_ref", "set", "swap"]
