"""`jax._src.traceback_util`: which frames to hide from user-facing tracebacks, and
the `api_boundary` decorator libraries mark their entry points with. The exclusion
list is astjax's own (astjax/traceback_util.py): a library's additions and removals
change what astjax's filtered tracebacks show."""
from __future__ import annotations

from ...traceback_util import (UnfilteredStackTrace, _excluded as _exclude_paths,  # noqa: F401
                               api_boundary, include_frame)


def register_exclusion(path: str) -> None:
    """Hide frames whose file is `path` or lies under it (`path` recorded as given,
    as JAX's list keeps it)."""
    _exclude_paths.append(path)
