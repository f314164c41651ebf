"""The `ag__` module of converted code (AutoGraph's `operators`): every name the
converter emits as `ag__.<name>`, defined here or imported explicitly.

- calls and naming: `call`, `name`, `names`; side effects on Python objects the
  function does not own: `mutation`, `store_into`, and whether a loop body or branch
  changes one on every trip: `per_trip_effect`; assignments to names declared
  `global`: `global_store`, `global_with`, `augmented` (below);
- state values: `Undefined`, `UndefinedReturnValue`, `ld`, `cell` (`branch_ops`);
- branches and boolean operators: `if_stmt`, `if_exp`, `and_`, `or_`, `not_`,
  `any_flag`, `now`, `compare_chain` (`branch_ops`); `is_`, `is_not` (`identity`);
- loops: `while_stmt`, `for_stmt`, `range_`, `iter_`, `unrolled_`, `scan_read`
  (`loop_ops`).

They run while staging: static values take Python's own path, staged values
stage IR."""
from __future__ import annotations

import functools
import inspect
import operator
import re
import sys
import threading
import types

from .. import core
from .. import tree_util
from ..errors import (USER_CODE, AmbiguousTruthValueError, ArityError, AstjaxError,
                      ConcretizationError,
                      EscapedTracerError, SourceChangedError, SourceNotFoundError, check_signature,
                      located_builtin_error, user_location, warn_at)
from . import call_tape, converter, object_effects, sourceless
from .array_ops import maximum, minimum
from .branch_ops import (Undefined, UndefinedReturnValue, and_, any_flag, cell, compare_chain,
                         defined, if_exp, if_stmt, ld, not_, now, or_)
from .identity import is_, is_not
from .loop_ops import for_stmt, iter_, range_, scan_read, unrolled_, while_stmt
from .trials import caught, guarded_with

__all__ = ["call", "name", "names", "mutation", "store_into", "global_store", "global_with",
           "augmented", "per_trip_effect",
           "Undefined", "UndefinedReturnValue", "ld", "defined", "cell",
           "if_stmt", "if_exp", "and_", "or_", "not_", "any_flag",
           "now", "compare_chain", "is_", "is_not",
           "while_stmt", "for_stmt", "range_", "iter_", "unrolled_", "scan_read",
           "caught", "guarded_with"]

_SKIP_MODULES = sourceless.SKIP_MODULES
_SKIP_PATHS = tuple({p for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p})


def _user_function(f) -> bool:
    mod = getattr(f, "__module__", None) or ""
    if mod.split(".")[0] in _SKIP_MODULES:
        return False
    fn = f.__code__.co_filename
    if "site-packages" in fn or "dist-packages" in fn:
        return False
    if fn.startswith(_SKIP_PATHS) and "/lib/python" in fn:
        return False
    return not fn.startswith("<") or fn.startswith("<ipython")


def _convertible(f):
    """The converted twin of user code `f` (a function, bound method or partial), or
    None: `f` runs as it is (library code, code converted already, and -- with a
    one-time warning -- a function without source, `sourceless`)."""
    if isinstance(f, types.FunctionType):
        if (f.__code__ in USER_CODE or sourceless.is_traced(f)
                or f.__code__.co_flags & _GENERATOR):   # a generator: iterated by Python
            return None
        if not _user_function(f):
            if sourceless.is_sourceless(f):
                sourceless.trace_without_source(f)
            return None
        try:
            return converter.convert(f)
        except SourceChangedError:
            return None  # a helper runs as imported (R6)
        except SourceNotFoundError as e:
            sourceless.trace_without_source(f, e.message)
            return None
    if isinstance(f, types.MethodType):
        inner = _convertible(f.__func__)
        return None if inner is None else types.MethodType(inner, f.__self__)
    if isinstance(f, functools.partial):
        inner = _convertible(f.func)
        return None if inner is None else functools.partial(inner, *f.args, **f.keywords)
    return None


_GENERATOR = inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR
_MAX_STAGED_DEPTH = 48


class _Depth(threading.local):
    """Per thread: code object -> how deep its converted calls are nested while staging
    (R13: threads staging the same helper must not count each other's calls)."""

    def __init__(self):
        self.of: dict = {}


_depth = _Depth()


def _builtin_on_staged(f, args, kwargs):
    """`max(x, 0)` / `min(a, b, c)` on staged 0-d values -> `maximum` / `minimum` (as
    jnp.maximum / jnp.minimum). Python's `max`/`min` compare their operands with `<`,
    so an operand with more than one element is ambiguous (JAX's ValueError), not an
    elementwise maximum."""
    if f not in (max, min) or len(args) < 2 or kwargs:
        return None
    if not any(isinstance(a, core.Tracer) and a.known is None for a in args):
        return None
    for a in args:
        shape = getattr(a, "shape", ())
        if isinstance(a, core.Tracer) and a.known is None and shape != ():
            raise AmbiguousTruthValueError(
                f"`{f.__name__}()` compares its operands with `<`, and the truth value of "
                f"an array with more than one element (here of shape {tuple(shape)}) is "
                f"ambiguous", loc=user_location(3),
                hint=f"use jnp.{'maximum' if f is max else 'minimum'} (elementwise) or "
                     f"jnp.{f.__name__}(x) (over the elements)")
    op = maximum if f is max else minimum
    out = args[0]
    for a in args[1:]:
        out = op(out, a)
    return out


def _is_builtin(f) -> bool:
    """A function or type implemented in C by Python itself (`int`, `len`, `pow`,
    `str.format`, ...): its own TypeError / ValueError has no frame of its own, so the
    front end locates it at the user's call, where JAX's would be raised."""
    if isinstance(f, type):
        return f.__module__ == "builtins"
    return isinstance(f, (types.BuiltinFunctionType, types.MethodWrapperType,
                          types.MethodDescriptorType))


def _builtin_hint(f, args) -> str:
    if any(isinstance(a, core.Tracer) and a.known is None for a in args):
        return (f"Python's `{getattr(f, '__name__', f)}` works on Python values; this "
                f"argument is a staged value: use the astjax.numpy function instead")
    return f"this is Python's own error from `{getattr(f, '__name__', f)}`"


def _check_arity(f, args, kwargs, e):
    """A TypeError raised by the call itself (no frame of the callee in its traceback)
    is a signature mismatch: report it as a located ArityError naming the user's
    function, not the converted twin (`ag__factory.<locals>.g`)."""
    if e.__traceback__ is not None and e.__traceback__.tb_next is None:
        check_signature(f, args, kwargs)


def _run_unconverted(f, args, kwargs):
    try:
        return f(*args, **kwargs)
    except (TypeError, ValueError) as e:
        if isinstance(e, AstjaxError):
            raise
        if e.__traceback__.tb_next is None and _is_builtin(f):
            raise located_builtin_error(e, hint=_builtin_hint(f, args)) from None
        if isinstance(e, TypeError) and not _is_builtin(f):
            _check_binding(f, args, kwargs, str(e))
        raise  # raised deeper down: that frame reports it


# Python's own words for a call its function's parameters do not accept
_PY_BINDING = re.compile(r"^[\w.<>]+\(\) ((?:got an unexpected|missing \d+ required|takes |"
                         r"got multiple values|got some positional-only).*)", re.S)


def _check_binding(f, args, kwargs, said):
    """A library function's call that its (public, `__wrapped__`-followed) signature
    does not accept (`jnp.sum(x, axs=0)`) as a located ArityError at the user's
    call, named as the user wrote it (`sum()`), where JAX raises Python's TypeError
    while tracing; else nothing (the TypeError came from deeper down). Python's own
    message (`said`) is kept when it is about binding, with the public name."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*args, **kwargs)
    except TypeError as bad:
        name = getattr(f, "__name__", None) or type(f).__name__
        own = _PY_BINDING.match(said)
        raise ArityError(f"{name}() {own.group(1) if own else bad}",
                         hint=f"its signature is {name}{sig}") from None


def _extremum_of_items(f, args, kwargs):
    """`max(xs)` / `min(gen)` of one iterable (a list, tuple, generator -- not an array,
    which Python iterates by rows): its items, read once (a generator is consumed here),
    as `max(a, b, ...)` on staged values; `(None, args)` when no item is staged, with
    the items as the call's argument (the same result from Python's `max`)."""
    if (len(args) != 1 or kwargs or isinstance(args[0], (core.Tracer, str, bytes))
            or hasattr(args[0], "shape") or not hasattr(args[0], "__iter__")):
        return None, args
    items = list(args[0])
    if not any(isinstance(a, core.Tracer) and a.known is None for a in items):
        return None, (items,)
    if len(items) == 1:   # Python returns the only item as it is (no comparison)
        return items[0], args
    return _builtin_on_staged(f, tuple(items), {}), args


def call(f, /, *args, **kwargs):
    """Call `f`, converting it first when it is user code."""
    if f is max or f is min:
        r, args = _extremum_of_items(f, args, kwargs)
        if r is None:
            r = _builtin_on_staged(f, args, kwargs)
        if r is not None:
            return r
    target = _convertible(f)
    if target is None:
        if not getattr(getattr(f, "__func__", f), converter._converted_marker, False):
            run = sourceless.run_traced if sourceless.is_traced(f) else _run_unconverted
            tape = call_tape.active_tape()   # a loop body is being staged
            return run(f, args, kwargs) if tape is None else tape.call(f, args, kwargs, run)
        target = f  # already converted (e.g. a recursive call inside converted code)
    key = getattr(getattr(target, "__func__", target), "__code__", None)
    if core.current_builder() is None or key is None:
        try:
            return target(*args, **kwargs)
        except TypeError as e:
            _check_arity(f, args, kwargs, e)
            raise
    depth = _depth.of
    d = depth.get(key, 0)
    if d >= _MAX_STAGED_DEPTH:
        raise ConcretizationError(
            f"`{getattr(f, '__name__', f)}` recursed {d} times while staging: its recursion "
            f"depth depends on a value only known when the function runs",
            hint="make the recursion depth static (a Python int or static_argnums), or "
                 "write the recursion as a while loop")
    depth[key] = d + 1
    try:
        return target(*args, **kwargs)
    except TypeError as e:
        _check_arity(f, args, kwargs, e)
        raise
    except RecursionError:
        if d:
            raise
        raise ConcretizationError(
            f"`{getattr(f, '__name__', f)}` recursed until Python's recursion limit while "
            f"staging: its recursion depth depends on a value only known when it runs",
            hint="make the recursion depth static (a Python int or static_argnums), or "
                 "write the recursion as a while loop") from None
    finally:
        if d:
            depth[key] = d
        else:
            del depth[key]


def name(value, name_str):
    """Record the user's variable name as the naming hint of a staged value."""
    if isinstance(value, core.Tracer):
        b = core.current_builder()
        if b is not None:
            b.set_name(value, name_str)
    return value


def names(value, names_tuple):
    """`a, b = value`: name the staged elements of a tuple or list being unpacked."""
    if isinstance(value, (tuple, list)) and len(value) == len(names_tuple):
        for v, n in zip(value, names_tuple):
            name(v, n)
    return value



_CONTAINERS = (list, dict, set, bytearray)
_warned: set = set()   # (file, line, col) of the side effects warned about


def _warn_once(loc, message):
    """A SideEffectWarning at `loc`, once per site (as the `default` warnings action: a
    loop unrolled while staging runs the same line once per trip)."""
    if (loc.file, loc.line, loc.col) not in _warned:
        _warned.add((loc.file, loc.line, loc.col))
        warn_at(loc, message)


def _holds_staged(value, depth=2) -> bool:
    """Whether a staged value flows into a store of `value`: a Tracer among its pytree
    leaves, in the attributes or closure cells of a leaf (an object or function keeping
    one, `depth` levels deep), or an iterator among them (what it yields cannot be seen
    without consuming it, so it counts)."""
    for leaf in tree_util.tree_leaves(value):
        if isinstance(leaf, core.Tracer) or hasattr(type(leaf), "__next__"):
            return True
        if depth <= 0 or isinstance(leaf, (type, types.ModuleType, str, bytes, int, float,
                                           complex, bool)):
            continue
        if isinstance(leaf, types.FunctionType):
            inner = [c.cell_contents for c in leaf.__closure__ or ()
                     if _cell_filled(c)]
        else:
            inner = list(getattr(leaf, "__dict__", {}).values())
        if inner and _holds_staged(inner, depth - 1):
            return True
    return False


def _cell_filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _stored_staged_warning(loc, what):
    _warn_once(loc, f"side effect: {what} stores a staged value in a Python object that "
                    f"this staged function does not own; it runs once, while staging, so "
                    f"the object keeps a tracer, not each call's value. Return the value "
                    f"instead.")


def mutation(owner_name, method, /, *args, **kwargs):
    """`owner.append(...)` (any mutating method name) where `owner` is not a local of
    the converted function: the call, as `call` makes it. While staging, on a Python
    container, it runs once per trace, as in JAX: silent when only Python values go
    in (`traces.append(None)`, `calls.append(1)`: the trace-counting idiom); a warning
    at the user's line when a staged value goes in (`_holds_staged`: the object would
    keep a tracer). Code run outside staging (a host callback's function, at run
    time) is not warned about."""
    if (core.current_builder() is not None
            and isinstance(getattr(method, "__self__", None), _CONTAINERS)
            and _holds_staged((args, kwargs))):
        _stored_staged_warning(user_location(), f"`{owner_name}.{method.__name__}(...)`")
    return call(method, *args, **kwargs)


def per_trip_effect(*candidates):
    """The first Python-level effect of a loop body or branch that holds, of the
    converter's candidates (effect, owner thunk or None, method name or None): one
    without an owner always holds, one changing an object holds when the call changes
    it (`object_effects.changes_owner`; a name not bound yet counts as a change, Python
    raises when the call runs). -> (what, line, col, end_col), or None."""
    for effect, owner, method in candidates:
        if owner is None:
            return effect
        try:
            o = owner()
        except NameError:
            return effect
        if object_effects.changes_owner(o, method):
            return effect
    return None


def store_into(value, obj, owner_name):
    """`value`, for `owner[k] = value` (or `owner[k] op= value`) where `owner` is not a
    local: while staging, on a Python container, a warning when a staged value goes in
    (as `mutation`); a Python value is stored silently, as JAX's trace stores it."""
    if (core.current_builder() is not None and isinstance(obj, _CONTAINERS)
            and _holds_staged(value)):
        _stored_staged_warning(user_location(), f"assigning into `{owner_name}[...]`")
    return value


def global_store(value, names, elements=None, what="assigning"):
    """The value of an assignment to names the function declares `global` (`names`;
    `elements`: for `a, b = value`, which targets are such names). Outside staging it
    is Python's store. While staging, a staged value there would escape the function
    (JAX leaks the tracer silently; Python would store every call's concrete value):
    a located EscapedTracerError (JAX's UnexpectedTracerError) before the module
    changes. A static value is stored silently: once per trace, as JAX's trace
    stores it (the `global n; n += 1` trace counter). Every binding form goes through here (`=`, `+=`,
    `:=`, `with ... as`, `import ... as`; `del` with `what="deleting"`)."""
    if core.current_builder() is None:
        return value
    where = ", ".join(f"`{n}`" for n in names)
    parts = [value]
    if elements is not None and isinstance(value, (tuple, list)) and \
            len(value) == len(elements):
        parts = [v for v, g in zip(value, elements) if g]
    staged = [x for x in tree_util.tree_leaves(parts) if isinstance(x, core.Tracer)]
    if staged:
        raise EscapedTracerError(
            f"a staged value ({staged[0].aval.str_short(True)}) is assigned to the global "
            f"{where}: it is only known when the compiled function runs, so it cannot be "
            f"stored in the module while staging", loc=user_location(),
            hint="return the value from the function and assign the global outside it")
    return value


class global_with:
    """`with cm as target` where `target` binds names the function declares `global`:
    the value `cm.__enter__()` gives goes through `global_store` before Python binds it."""

    def __init__(self, cm, names, elements=None):
        self.cm, self.names, self.elements = cm, names, elements

    def __enter__(self):
        return global_store(type(self.cm).__enter__(self.cm), self.names, self.elements)

    def __exit__(self, *exc):
        return type(self.cm).__exit__(self.cm, *exc)


def augmented(op_name, target, value):
    """`target <op>= value` as Python computes it (`operator.iadd`, ...)."""
    return getattr(operator, op_name)(target, value)
