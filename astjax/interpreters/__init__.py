"""`astjax.interpreters` (JAX's `jax.interpreters`): the rule tables libraries write
to — `ad`, `batching`, `mlir`, `partial_eval`, and `xla.apply_primitive` — as views of the rule slots each
astjax `Primitive` carries (see docs/architecture.md)."""
from . import ad, batching, mlir, partial_eval, xla  # noqa: F401
from . import pxla  # noqa: F401  (legacy mesh state: thread_resources)
from .. import traceback_util  # noqa: F401  (JAX's module exports it too)
