"""`astjax.extend.source_info_util` (JAX's `jax.extend.source_info_util`): source
locations. JAX uses `register_exclusion` to hide library frames from tracebacks;
astjax keeps every frame and locates its errors at the innermost frame outside
astjax, so registered paths are only recorded (`excluded_paths`)."""
from __future__ import annotations

from .. import errors

__all__ = ["register_exclusion", "excluded_paths", "current", "user_frame", "SourceInfo"]

SourceInfo = errors.SourceInfo
excluded_paths: list[str] = []


def register_exclusion(path: str) -> None:
    """Record `path` as library code (see the module docstring)."""
    excluded_paths.append(path)


def current() -> SourceInfo:
    """The source location of the code calling into astjax now."""
    return errors.caller_location()


def user_frame(source_info=None) -> SourceInfo:
    """The user's location: `source_info` itself, or where astjax was called from."""
    return source_info if source_info is not None else errors.caller_location()
