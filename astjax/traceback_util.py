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

astjax's own entry points (`jit(f)(x)`, `grad`, `vmap`, `make_jaxpr`, `jvp`, ...) are
boundaries too: a user's exception raised while they run the user's function leaves
the outermost one filtered by the same modes, with JAX's note, and no astjax frame
(`entry_point`, or `boundary` + `at_boundary` where an extra call would cost on a hot
path). astjax's own errors keep their located form: they are filtered where raised.
"""
from __future__ import annotations

import builtins
import functools
import os
import traceback
import types
import typing

from .config import config
from .errors import AstjaxError

__all__ = ["UnfilteredStackTrace", "api_boundary", "at_boundary", "boundary", "entry_point",
           "filter_traceback", "filtering_mode", "include_frame", "register_exclusion",
           "user_traceback"]

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
        if frame.f_code is _BOUNDARY_CODE or frame.f_code in _boundaries:
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


# the code objects of astjax's entry points (`boundary`, `entry_point`)
_boundaries: set = set()
_F = typing.TypeVar("_F", bound=typing.Callable[..., typing.Any])


def boundary(fun: _F) -> _F:
    """Mark `fun` as one of astjax's API boundaries: its body catches `Exception` and
    calls `at_boundary(e)` before a bare `raise` (so its own frame is not added again).
    Returns `fun` itself: no extra call on a hot path such as `jit(f)(x)`."""
    _boundaries.add(fun.__code__)
    return fun


def at_boundary(e: Exception) -> None:
    """In an astjax boundary's `except`: an exception leaving the outermost boundary
    gets its traceback filtered by `jax_traceback_filtering` -- a user's with JAX's
    note, astjax's own without (its located message says where)."""
    if not isinstance(e, AstjaxError):
        _refilter(e)
        return
    e.__cause__, e.__suppress_context__ = None, True   # (as `raise e from None`)
    if e.__traceback__ is not None and not _under_boundary(e):
        e.with_traceback(filter_traceback(e.__traceback__))


def entry_point(fun: _F) -> _F:
    """`fun` (a public astjax function that runs the user's code) as an API boundary."""
    @functools.wraps(fun)
    def filtered_entry(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            at_boundary(e)
            raise
    return typing.cast(_F, filtered_entry)


boundary(entry_point(len))   # (every `entry_point` wrapper shares this code object)
