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
itself; "tracebackhide" keeps them all but marks the hidden ones with a
`__tracebackhide__` local (what IPython and pytest skip). `register_exclusion(path)`
hides another library's frames as well, and `api_boundary` is the decorator
`jax._src.traceback_util` offers libraries: an exception leaving the outermost one
is filtered by JAX's modes (below).
"""
from __future__ import annotations

import builtins
import functools
import os
import traceback
import types

from .config import config

__all__ = ["UnfilteredStackTrace", "api_boundary", "filter_traceback", "filtering_mode",
           "include_frame", "register_exclusion", "user_traceback"]

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
    # entries are directories ending in a separator, or (appended as JAX's list takes
    # them, by `jax._src.traceback_util` users) a file or directory without one
    return not any(name.startswith(p) if p.endswith(os.sep)
                   else name == p or name.startswith(p + os.sep) for p in _excluded)


def filtering_mode() -> str:
    """The `jax_traceback_filtering` mode in force: 'auto' (or None) is
    'tracebackhide' under an IPython that honours it (7.17 on), else
    'quiet_remove_frames', as in JAX."""
    mode = config.read("jax_traceback_filtering")
    if mode is None or mode == "auto":
        if getattr(builtins, "get_ipython", None) is not None and _ipython_hides():
            return "tracebackhide"
        return "quiet_remove_frames"
    return mode


def _ipython_hides() -> bool:
    try:
        import IPython
    except ImportError:
        return False
    return tuple(IPython.version_info[:2]) >= (7, 17)


def filtering_enabled() -> bool:
    """False when `jax_traceback_filtering` is 'off'."""
    return filtering_mode() != "off"


def _mark_hidden(tb) -> None:
    """Give every excluded frame of `tb` a `__tracebackhide__` local."""
    for frame, _ in traceback.walk_tb(tb):
        if not include_frame(frame) and frame.f_code is not _BOUNDARY_CODE:
            frame.f_locals["__tracebackhide__"] = True


def filter_traceback(tb):
    """`tb` without the excluded frames (a new chain; `tb` is unchanged), or `tb`
    itself when filtering is off or (its hidden frames marked) 'tracebackhide'."""
    mode = filtering_mode()
    if mode == "off":
        return tb
    if mode == "tracebackhide":
        _mark_hidden(tb)
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


class UnfilteredStackTrace(Exception):
    """The `__cause__` 'remove_frames' gives a filtered exception: its message, with
    the traceback before filtering (and the calling frames up to the module level)."""


_SIMPLIFIED = ("For simplicity, JAX has removed its internal frames from the traceback "
               "of the following exception. Set JAX_TRACEBACK_FILTERING=off to include "
               "these.")
_UNFILTERED = ("The stack trace below excludes JAX-internal frames.\n"
               "The preceding is the original exception that occurred, unmodified.\n"
               "\n--------------------")


def _under_boundary(e: BaseException) -> bool:
    """Whether an outer `api_boundary` is on the stack of the one catching `e`."""
    frame = e.__traceback__.tb_frame.f_back if e.__traceback__ is not None else None
    while frame is not None:
        if frame.f_code is _BOUNDARY_CODE:
            return True
        frame = frame.f_back
    return False


def _with_callers(tb):
    """`tb` preceded by its callers' shown frames, up to the first run of
    module-level frames (not past a REPL's exec point)."""
    out, module_level = tb, False
    for frame, lineno in traceback.walk_stack(tb.tb_frame):
        if "importlib._bootstrap" in frame.f_code.co_filename:
            continue
        if module_level and frame.f_code.co_name != "<module>":
            break
        if include_frame(frame):
            out = types.TracebackType(out, frame, frame.f_lasti, lineno)
        if frame.f_code.co_name == "<module>":
            module_level = True
    return out


def _refilter(e: Exception) -> None:
    """Filter `e`, leaving the outermost boundary, by the mode in force."""
    mode = filtering_mode()
    if mode == "off" or _under_boundary(e):
        return
    tb = e.__traceback__
    if mode == "tracebackhide":
        _mark_hidden(tb)
        return
    if mode not in ("quiet_remove_frames", "remove_frames"):
        raise ValueError(f"JAX_TRACEBACK_FILTERING={mode} is not a valid value.")
    if tb is None:
        raise TypeError("Traceback is None") from e
    e.with_traceback(filter_traceback(tb))
    if mode == "quiet_remove_frames":
        e.add_note("--------------------\n" + _SIMPLIFIED)
        return
    text = "".join(traceback.format_exception_only(type(e), e)).strip()
    unfiltered = UnfilteredStackTrace(f"{text}\n\n{_UNFILTERED}")
    unfiltered.with_traceback(_with_callers(tb))
    unfiltered.__cause__, unfiltered.__context__ = e.__cause__, e.__context__
    unfiltered.__suppress_context__ = e.__suppress_context__
    e.__cause__, e.__context__ = unfiltered, None


def api_boundary(fun=None, *, repro_api_name=None, repro_user_func=False):
    """Mark `fun` as a public entry point (usable with or without arguments): an
    exception leaving the outermost boundary has its traceback filtered by
    `jax_traceback_filtering`, as JAX's `api_boundary` does (the `repro_*`
    arguments name JAX's repro tool's view of the call and change nothing here)."""
    if fun is None:
        return api_boundary

    @functools.wraps(fun)
    def reraise_with_filtered_traceback(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841  (the frame's mark for IPython, pytest)
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            _refilter(e)
            raise
    return reraise_with_filtered_traceback


_BOUNDARY_CODE = api_boundary(len).__code__
