"""`jax._src.lib`: the names programs read from it -- jaxlib's `xla_client`, the
jaxlib version (`version`, `version_str`, `jaxlib_extension_version`) and the
`Device` class -- and, as `jax._src.lib.mlir`, jaxlib's MLIR Python bindings, with
which lowering rules are written as MLIR ops (`astjax.interpreters.mlir` runs them:
codegen/mlir_builders.py)."""
from __future__ import annotations

import jaxlib
from jaxlib import _jax
from jaxlib import xla_client

from . import mlir  # noqa: F401

__all__ = ["xla_client", "version", "version_str", "jaxlib_extension_version", "Device",
           "jaxlib"]

version_str: str = jaxlib.__version__
version: tuple[int, ...] = tuple(int(p) for p in version_str.split(".")[:3] if p.isdigit())
jaxlib_extension_version: int = getattr(xla_client, "_version", 0)
Device = _jax.Device
