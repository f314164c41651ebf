"""`astjax.interpreters` (JAX's `jax.interpreters`): the rule tables libraries write
to — `ad`, `batching`, `mlir`, `partial_eval` — as views of the rule slots each
astjax `Primitive` carries (see docs/architecture.md)."""
from . import ad, batching, mlir, partial_eval  # noqa: F401
