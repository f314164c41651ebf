"""jaxlib calls that would import real JAX's modules: jaxlib's C++ side imports
`jax.core` / `jax._src.sharding_impls` when it can (for avals: a multi-device array's
`_arrays`, a host copy of a narrow dtype) and copes when it cannot. astjax never imports
jax, so those calls run with the import blocked (`without_jax`)."""
from __future__ import annotations

import sys as _sys

__all__ = ["without_jax"]


def without_jax(read, _names=("jax", "jax.core", "jax._src.sharding_impls")):
    """`read()`, a jaxlib call whose C++ side imports `jax.core` /
    `jax._src.sharding_impls` when it can (for avals; `_arrays`, a host copy) and copes
    when it cannot (the avals are then None; astjax keeps its own). astjax never
    imports jax: unless real JAX is imported already, the import is blocked for the
    duration of the call (those names None in `sys.modules`: it fails at once, without
    a search of the path, also when astjax's alias serves `jax`; what was there is put
    back after), so a later `import jax` works as usual."""
    if "jax._src.config" in _sys.modules:   # (imported by real JAX only)
        return read()
    before = {name: _sys.modules.get(name) for name in _names}
    _sys.modules.update(dict.fromkeys(_names))
    try:
        return read()
    finally:
        for name, module in before.items():
            if _sys.modules.get(name, 0) is None:   # (what was there, or nothing)
                del _sys.modules[name]
                if module is not None:
                    _sys.modules[name] = module
