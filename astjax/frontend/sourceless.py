"""Functions without source: traced, as JAX traces every function.

astjax stages a user function from its source. Some functions have none that
`inspect` could find: made by `exec` / `compile` / `eval` from a string, typed at a
plain interactive prompt or given to `python -c` (their file is `<string>` or
`<stdin>`), or imported from a module shipped as `.pyc` only. Such a function is
not an error: it runs on staged values as it is (library code runs the same way),
which is what JAX does with every function, with one warning per function
(`NoSourceWarning`) naming it.

What tracing cannot do is what conversion is for: Python control flow on a staged
value (`if x > 0:`, `while err > tol:`) raises JAX's `TracerBoolConversionError`
(and the other concretization errors) there. Such an error is relocated to the
innermost frame of code without source in its traceback (the file and position;
there is no text to show), and its hint says why the value could not be converted.
The registry is keyed by code object *and* file name: code objects compare equal
across files, and a function with source must never be mistaken for one without.
"""
from __future__ import annotations

import functools
import linecache
import threading
import types
import warnings

from ..errors import USER_CODE, AstjaxError, ConcretizationError, NoSourceWarning, SourceInfo

# what the front end never converts (astjax itself, NumPy, JAX, their dependencies)
SKIP_MODULES = ("astjax", "numpy", "jax", "jaxlib", "scipy", "ml_dtypes", "gast")

_traced: dict = {}     # (code, file) -> the function's qualified name, once warned
_codes: set = set()    # (code, file) of those functions and every function nested in them
_lock = threading.Lock()


def is_sourceless(f) -> bool:
    """Whether `f` (a plain function) was made from a string or at a prompt:
    its file is a `<...>` pseudo-file with no lines in `linecache` (IPython cells and
    doctests register theirs, and are converted), and it is not library code."""
    filename = f.__code__.co_filename
    if not filename.startswith("<") or filename.startswith("<ipython"):
        return False
    mod = (getattr(f, "__module__", None) or "").split(".")[0]
    return mod not in SKIP_MODULES and not linecache.getlines(filename)


def _key(code):
    return (code, code.co_filename)


def _register(code):
    _codes.add(_key(code))
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _register(c)


def trace_without_source(f, why: str = "") -> None:
    """Record that `f` runs traced: warn once (per code object) naming it and where it
    was defined, and register its code so errors raised inside it are located there."""
    code = f.__code__
    with _lock:
        if _key(code) in _traced:
            return
        _traced[_key(code)] = name = getattr(f, "__qualname__", code.co_name)
        _register(code)
    where = f"{code.co_filename}:{code.co_firstlineno}"
    # reported at the function's definition (its module's filters apply)
    warnings.warn_explicit(
        f"astjax: `{name}` (defined at {where}) has no source astjax can find"
        f"{' (' + why + ')' if why else ''}; it is traced, as JAX traces it: Python "
        f"`if`/`while` on staged values are not converted inside it", NoSourceWarning,
        code.co_filename, code.co_firstlineno,
        module=(getattr(f, "__module__", None) or "<astjax>"))


def _innermost_sourceless(tb):
    """The location of the innermost frame of `tb` that runs code without source, if no
    converted user frame is inside it, else None."""
    loc = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if _key(code) in _codes:
            pos = list(code.co_positions())
            i = tb.tb_lasti // 2
            line, _, col, end = pos[i] if 0 <= i < len(pos) else (tb.tb_lineno, 0, 0, 0)
            loc = SourceInfo(code.co_filename, line or tb.tb_lineno, col, end)
        elif code in USER_CODE:
            loc = None
        tb = tb.tb_next
    return loc


def _note(e: AstjaxError) -> None:
    """Point a concretization error raised in code without source (or an error with
    no location) at that code's line, and add to a concretization error why the
    control flow there was not converted (once)."""
    concretization = isinstance(e, ConcretizationError)
    if not concretization and e.loc is not None and e.loc.file is not None:
        return
    loc = _innermost_sourceless(e.__traceback__)
    if loc is None:
        return
    e.loc = loc
    if concretization and "no source astjax can find" not in (e.hint or ""):
        e.hint = (f"this line is in a function with no source astjax can find ({loc.file}), "
                  f"so it was traced, not converted: Python control flow on staged values "
                  f"needs lax.cond / lax.while_loop / jnp.where there, or define the function "
                  f"in a file. " + (e.hint or ""))


def run_traced(f, args, kwargs):
    """`f(*args, **kwargs)` for a function that runs traced; a concretization error
    raised in code without source gets the note of `_note`."""
    try:
        return f(*args, **kwargs)
    except AstjaxError as e:
        _note(e)
        raise


def traced(f):
    """`f` as the callable a transform stages: itself, with the note of `_note` on a
    concretization error raised inside it."""
    @functools.wraps(f)
    def run(*args, **kwargs):
        return run_traced(f, args, kwargs)
    return run


def is_traced(f) -> bool:
    """Whether `f` (a function, bound method or partial) runs traced without source."""
    if not _traced:
        return False   # the usual case, asked per staged call: no code object to hash
    plain = getattr(f, "__func__", f)
    plain = getattr(plain, "func", plain)
    code = getattr(plain, "__code__", None)
    return code is not None and _key(code) in _traced
