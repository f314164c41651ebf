"""`jax._src.lib.mlir`: jaxlib's MLIR Python bindings (`ir`, `passmanager`) and their
dialects, the ones astjax's lowering of builder-written rules loads
(codegen/mlir_builders.py)."""
from __future__ import annotations

from jaxlib.mlir import ir, passmanager  # noqa: F401

from . import dialects  # noqa: F401

__all__ = ["ir", "passmanager", "dialects"]
