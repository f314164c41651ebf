"""How an elementwise `jnp` function runs (issue 14): the `_unary` / `_binary` factories
that make the ufuncs of `ufuncs.py`. Their operands take, in order,

- an eager program (`codegen/eager_programs.py`): concrete single-device Arrays whose
  signature was seen twice run one compiled program, no lax layer under it;
- the promotion fast path: strong operands that need no conversion go straight to the
  lax function;
- otherwise JAX's promotion lattice, in one `library_jit` (JAX's ufuncs are jitted): an
  eager call with operands to convert compiles one executable, not one per conversion."""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import core, dtypes
from ..codegen import eager_programs as _eager, runtime
from ..codegen.runtime import Array, CommittedArray
from ..core import Tracer
from ..errors import ArgumentValueError
from ..sharding_impls import context_meshes as _context_meshes
from .. import typing as _typing  # (`Array` here is the runtime class)
from .operands import (asarray_operand, promote_args, promote_args_inexact, promote_operands,
                       result, scalar_operand)
from .ufunc_docs import doc as _doc
from .util import library_jit

# ---- promotion fast path (issue 14): the common operands skip JAX's promotion
# lattice. An Array or Tracer of a strong (non-weak) dtype needs no conversion for a
# unary function (an inexact dtype, for the inexact ones), nor beside an operand of
# the same aval, nor beside a Python float when that float's default dtype is the
# array's (then promotion makes it exactly `scalar_operand(v, dtype, False)`).
_INEXACT = frozenset(np.dtype(d) for d in ("float16", "float32", "float64", "complex64",
                                            "complex128")) | {np.dtype(dtypes.bfloat16)}
_FLOAT = frozenset(d for d in _INEXACT if d.kind == "f")


def _strong(x):
    """x's aval when x is an Array or Tracer with a strong dtype, else None."""
    if type(x) is Array or type(x) is CommittedArray or isinstance(x, Tracer):
        a = x.aval
        if not a.weak_type:
            return a
    return None


def _fast_binary(x, y, inexact):
    """(x, y) promoted as `promote_args(_inexact)` would, or None: not a fast case."""
    ax, ay = _strong(x), _strong(y)
    if ax is not None:
        if ay is not None:
            if ax.dtype == ay.dtype and ax.shape == ay.shape and (
                    not inexact or ax.dtype in _INEXACT):
                return x, y
        elif type(y) is float and ax.dtype in _FLOAT and \
                dtypes.python_scalar_dtype(y) == ax.dtype:
            return x, scalar_operand(y, ax.dtype, False)
    elif ay is not None and type(x) is float and ay.dtype in _FLOAT and \
            dtypes.python_scalar_dtype(x) == ay.dtype:
        return scalar_operand(x, ay.dtype, False), y
    return None


# ---- eager programs (issue 14): on concrete single-device Arrays of interned avals,
# outside staging and with no execute listener (debug_nans), a ufunc whose operands
# take the fast promotion path runs one compiled program per signature
# (`codegen/eager_programs.py`: made from `lax_fn` itself, on the signature's second
# call), so `jnp.sin(z) * 0.5 + y` is one Python layer per op. Python floats travel as
# weak scalars of the array's dtype (device buffers shared by value; 0.0 and NaN,
# whose keys are ambiguous, take the op-by-op path). A program is checked against the
# type of the op-by-op result when it is made.
_state = core._state
_x64 = dtypes.config._values
_programs = _eager.eager_programs
_interned = runtime.interned_ids


def _eager_ok():   # (under set_mesh operations run on its mesh: codegen/spmd.py)
    return (not _state.builders and not runtime.execute_listeners
            and not runtime.move_operands and not _context_meshes[0])


def _named(f, names):
    """f, its positional-only parameters shown as `names` (JAX's names, where they
    differ from the generic ones; a caller cannot pass them by name either way)."""
    if names is not None:
        sig = inspect.signature(f)
        f.__signature__ = sig.replace(parameters=[
            p.replace(name=n) for p, n in zip(sig.parameters.values(), names)])
    return f


# operands whose promotion an eager call runs in one `library_jit` (as JAX's jitted
# ufuncs): concrete arrays and scalars. Anything else (a Tracer, an object with
# `__jax_array__`, a pytree) is promoted op by op, as it always was.
_PLAIN = frozenset({Array, CommittedArray, np.ndarray, bool, int, float, complex})


def _plain(x):
    return type(x) in _PLAIN or isinstance(x, np.generic)


def _jitted(name, promoted):
    """`promoted` (a ufunc's promotion and lax function) as a `library_jit` named as the
    ufunc, its parameters JAX's `x` (and `y`), as a jit's errors name its arguments."""
    if len(inspect.signature(promoted).parameters) == 1:
        def fn(x):
            return promoted(x)
    else:
        def fn(x, y):
            return promoted(x, y)
    fn.__name__ = fn.__qualname__ = name
    return library_jit(fn)


def _unary(name: str, lax_fn: Callable[..., Any], inexact: bool = False,
           doc: str | None = None, names=None) -> Callable[..., _typing.Array]:
    """A unary ufunc; `doc` is its docstring (default: `ufunc_docs.doc(name)`);
    `names`: its parameter's name, if JAX's is not `x`."""
    def f(x, /):
        if type(x) is Array:
            prog = _programs.get((f, id(x.aval), _x64["jax_enable_x64"]))
            if prog is not None and _eager_ok():
                return prog.run([x._buf])
        a = _strong(x)
        if a is not None and (not inexact or a.dtype in _INEXACT):
            out = lax_fn(x)  # an Array or Tracer in, an Array or Tracer out
            if type(x) is Array and type(out) is Array and id(a) in _interned and _eager_ok():
                _eager.eager_program((f, id(a), _x64["jax_enable_x64"]), lax_fn, [x], out.aval)
            return out
        return (jitted if _plain(x) else promoted)(x)

    def promoted(x):
        x = asarray_operand(x)
        if inexact:
            [x] = promote_args_inexact(name, x)
        elif dtypes.is_weak_scalar(x):
            [x] = promote_operands([x])
        return result(lax_fn(x))
    jitted = _jitted(name, promoted)
    f.__name__ = name
    f.__doc__ = _doc(name) if doc is None else doc
    return _named(f, names)


def _binary_key(f, x, y):
    """The eager-program key of f(x, y) (an Array and an Array or a nonzero,
    non-NaN Python float), or None."""
    tx, ty = type(x), type(y)
    if tx is Array:
        if ty is Array:
            return (f, id(x.aval), id(y.aval), _x64["jax_enable_x64"])
        if ty is float and y == y and y:
            return (f, id(x.aval), float, _x64["jax_enable_x64"])
    elif tx is float and ty is Array and x == x and x:
        return (f, float, id(y.aval), _x64["jax_enable_x64"])
    return None


def _bufs(x, y, prog):
    """The operands' device buffers for an eager program (floats: shared weak scalars
    of the program's parameter type)."""
    if type(x) is float:
        return [_eager.float_buf(x, prog.in_avals[0]), y._buf]
    if type(y) is float:
        return [x._buf, _eager.float_buf(y, prog.in_avals[1])]
    return [x._buf, y._buf]


def _named_operand(e, name, x1, x2):
    """`e`, naming the jnp function's operand as JAX's does when set_mesh's check refused
    an operand committed to another device (`x of add`: JAX's ufuncs are jits of their
    own), where the check named the primitive's (`args[0] of add`)."""
    committed = [p for p, x in (("x", x1), ("y", x2)) if isinstance(x, CommittedArray)]
    if not committed or not e.message.startswith(_OTHER_DEVICE):
        return e
    message = re.sub(r"argument args\[(\d+)\] of \S+ ", lambda m: "argument "
                     f"{('x', 'y')[int(m.group(1))] if int(m.group(1)) < 2 else m.group(1)} "
                     f"of {name} ", e.message)
    return ArgumentValueError(message, hint=e.hint, loc=e.loc)


_OTHER_DEVICE = "Received incompatible devices for jitted computation. Got argument args["


def _binary(name: str, lax_fn: Callable[..., Any], inexact: bool = False,
            doc: str | None = None, names=None, keys=None) -> Callable[..., _typing.Array]:
    """A binary ufunc; `doc` is its docstring (default: `ufunc_docs.doc(name)`);
    `names`: its parameters' names, if JAX's are not `x1, x2`; `keys`: what it does
    when an operand is a typed PRNG key array (JAX's `equal` / `not_equal` compare
    keys), else keys are refused."""
    def f(x1, x2, /):
        key = _binary_key(f, x1, x2)
        if key is not None:
            prog = _programs.get(key)
            if prog is not None and _eager_ok():
                return prog.run(_bufs(x1, x2, prog))
        try:
            fast = _fast_binary(x1, x2, inexact)
            if fast is not None:
                out = lax_fn(*fast)
                if key is not None and type(out) is Array and _eager_ok() and all(
                        type(v) is not Array or id(v.aval) in _interned for v in fast):
                    _eager.eager_program(key, lax_fn, fast, out.aval)
                return out
            if keys is not None and (dtypes.has_extended_dtype(x1) or
                                     dtypes.has_extended_dtype(x2)):
                return keys(x1, x2)
            return (jitted if _plain(x1) and _plain(x2) else promoted)(x1, x2)
        except ArgumentValueError as e:
            raise _named_operand(e, name, x1, x2) from None

    def promoted(x, y):
        # (lax's binary primitives broadcast size-1 dimensions: ranks promoted only)
        return lax_fn(*(promote_args_inexact if inexact else promote_args)(
            name, x, y, ranks_only=True))
    jitted = _jitted(name, promoted)
    f.__name__ = name
    f.__doc__ = _doc(name) if doc is None else doc
    return _named(f, names)


