"""`astjax.extend.source_info_util` (JAX's `jax.extend.source_info_util`): source
locations. JAX uses `register_exclusion` to hide library frames from tracebacks;
astjax keeps every frame and locates its errors at the innermost frame outside
astjax, so registered paths are only recorded (`excluded_paths`). The name-stack
functions are astjax's own (`astjax/name_stack.py`): what they set is what staged
equations record in `source_info.name_stack`."""
from __future__ import annotations

from .. import errors
from ..name_stack import (NameStack, current_name_stack, extend_name_stack, new_name_stack,
                          reset_name_stack, set_name_stack, transform_name_stack)

__all__ = ["register_exclusion", "excluded_paths", "current", "user_frame", "SourceInfo",
           "new_source_info", "NameStack", "current_name_stack", "extend_name_stack",
           "new_name_stack", "reset_name_stack", "set_name_stack", "transform_name_stack"]

SourceInfo = errors.SourceInfo
excluded_paths: list[str] = []


def register_exclusion(path: str) -> None:
    """Record `path` as library code (see the module docstring)."""
    excluded_paths.append(path)


def current() -> SourceInfo:
    """The source location of the code calling into astjax now, with the name stack."""
    return errors.caller_location().replace(name_stack=current_name_stack())


def new_source_info() -> SourceInfo:
    """A source info with no location and an empty name stack."""
    return SourceInfo()


def user_frame(source_info=None) -> SourceInfo:
    """The user's location: `source_info` itself, or where astjax was called from."""
    return source_info if source_info is not None else errors.caller_location()
