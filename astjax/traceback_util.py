"""Tracebacks that help: an error raised at one of astjax's API boundaries (`jit`,
`grad`, `vmap`, `source`, ...) keeps the frames of the user's code and drops
astjax's own, so the printed traceback ends at the user's line and `pdb.post_mortem`
lands there.

The user's code runs converted, but the converted code is compiled under the user's
file name and line numbers, so its frames count as the user's. One astjax frame
stays: the boundary that re-raises (Python records the frame an exception passes
through; nothing can remove it from inside).

`config.update("jax_traceback_filtering", "off")` (or the environment variable
`JAX_TRACEBACK_FILTERING=off`, as in JAX) keeps every frame, for debugging astjax
itself. `register_exclusion(path)` hides another library's frames as well (the hook
`jax._src.traceback_util` offers libraries).
"""
from __future__ import annotations

import os
import types

from .config import config

__all__ = ["filter_traceback", "include_frame", "register_exclusion", "user_traceback"]

# astjax/, and the directories astjax.transforms / astjax.codegen are installed from
_ROOT = os.path.dirname(os.path.abspath(__file__))
_excluded: list[str] = [_ROOT + os.sep,
                        os.path.join(os.path.dirname(_ROOT), "transforms") + os.sep,
                        os.path.join(os.path.dirname(_ROOT), "codegen") + os.sep]


def register_exclusion(path: str) -> None:
    """Hide frames whose file lies under `path` from filtered tracebacks."""
    path = os.path.abspath(path)
    if os.path.isdir(path):
        path += os.sep
    if path not in _excluded:
        _excluded.append(path)


def include_frame(frame) -> bool:
    """Whether a filtered traceback shows `frame` (it is not astjax's or excluded)."""
    name = frame.f_code.co_filename
    if not os.path.isabs(name):  # <string>, <frozen ...>: not ours
        return True
    return not any(name.startswith(p) for p in _excluded)


def filtering_enabled() -> bool:
    """False when `jax_traceback_filtering` is 'off'."""
    return str(config.read("jax_traceback_filtering")).lower() != "off"


def filter_traceback(tb):
    """`tb` without the excluded frames (a new chain; `tb` is unchanged), or `tb`
    itself when filtering is off."""
    if not filtering_enabled():
        return tb
    kept = []
    while tb is not None:
        if include_frame(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


def user_traceback(e: BaseException):
    """`e`'s traceback with the user's frames only; API boundaries re-raise with
    `raise e.with_traceback(user_traceback(e)) from None`."""
    return filter_traceback(e.__traceback__)
