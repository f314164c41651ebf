"""Mutable high-level values at a transformation's boundary: `jax.experimental.hijax`'s
`MutableHiType`s (flax's hijax Variables, JAX's `Box`) passed to `jit`, `eval_shape` or
as a non-differentiated argument of `grad`.

A mutable hi value is a Python object whose state -- its quasi-dynamic data (`qdd`, the
structure and leaf types, from `cur_qdd(x)`) and the arrays it holds -- the function
may change. As JAX lowers such a value, the call here

1. lowers each distinct one among the arguments to its arrays (`read_loval`), the qdd
   kept static: a `_Lo` pytree node, so the staging is keyed by it;
2. stages the function on a fresh value raised from the staged arrays
   (`new_from_loval`; one per distinct argument object, so aliasing is kept) and
   returns, after the function's results, each one's final qdd and arrays;
3. stores the final state into the caller's object (`update_from_loval`).

`pytype_aval_mappings` is what `hijax.register_hitype` fills: value class -> its
abstract value's function.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import tree_util
from .errors import ArgumentTypeError
from .staging import as_callable

pytype_aval_mappings: dict[type, Callable[[Any], Any]] = {}


def hi_type(x):
    """The registered hi type (abstract value) of `x`, or None."""
    if not pytype_aval_mappings:
        return None
    for cls in type(x).__mro__:
        fn = pytype_aval_mappings.get(cls)
        if fn is not None:
            return fn(x)
    return None


def is_mutable(x) -> bool:
    """Whether `x` is a value of a registered hi type with quasi-dynamic data."""
    aval = hi_type(x)
    return aval is not None and bool(getattr(aval, "has_qdd", False))


def cur_qdd(x):
    """`x`'s current quasi-dynamic data (JAX's `jax.experimental.cur_qdd`): astjax's hi
    values are Python objects on every side of a staging, so it is the value's own."""
    return x.cur_qdd()


def has_mutable(tree) -> bool:
    """Whether a mutable hi value is among `tree`'s leaves."""
    return bool(pytype_aval_mappings) and any(
        is_mutable(x) for x in tree_util.tree_leaves(tree))


class _Lo:
    """A mutable hi value at a boundary: its arrays (the children) and, static, which
    distinct argument it is, its type and its qdd."""
    __slots__ = ("index", "aval", "qdd", "vals")

    def __init__(self, index, aval, qdd, vals):
        self.index, self.aval, self.qdd, self.vals = index, aval, qdd, list(vals)


class _Final:
    """A hi value's final qdd, carried out of a staging as static pytree data."""
    __slots__ = ("qdd",)

    def __init__(self, qdd):
        self.qdd = qdd


tree_util.register_pytree_node(
    _Lo, lambda n: (n.vals, (n.index, n.aval, n.qdd)),
    lambda aux, vals: _Lo(*aux, vals))
tree_util.register_pytree_node(_Final, lambda f: ((), f.qdd), lambda qdd, _: _Final(qdd))


class Lowering:
    """`tree` with each mutable hi value replaced by its `_Lo` node (`.tree`), and the
    objects (`.objs`) the final states are stored back into, in order. As in JAX, an
    object passed twice is two values: each is raised on its own and stored back in
    turn (the last one's state stays)."""

    def __init__(self, tree):
        self.objs: list = []

        def lower(x):
            aval = hi_type(x)
            if aval is None or not getattr(aval, "has_qdd", False):
                return x
            self.objs.append(x)
            qdd = cur_qdd(x)
            return _Lo(len(self.objs) - 1, aval, qdd, aval.read_loval(qdd, x))

        self.tree = tree_util.tree_map(lower, tree)

    def write_back(self, finals) -> None:
        """Store each object's final state (`finals`: `run_lowered`'s second result)."""
        for obj, (final, vals) in zip(self.objs, finals):
            hi_type(obj).update_from_loval(final.qdd, obj, *vals)


def _is_lo(x) -> bool:
    return isinstance(x, _Lo)


def _raise(tree):
    """`tree` with its `_Lo` nodes raised to fresh hi values, and those values in order."""
    made: dict[int, Any] = {}

    def up(x):
        if not isinstance(x, _Lo):
            return x
        obj = made[x.index] = x.aval.new_from_loval(x.qdd, *x.vals)
        return obj

    out = tree_util.tree_map(up, tree, is_leaf=_is_lo)
    return out, [made[i] for i in sorted(made)]


def _finals(objs) -> list:
    outs = []
    for obj in objs:
        qdd = cur_qdd(obj)
        outs.append((_Final(qdd), list(hi_type(obj).read_loval(qdd, obj))))
    return outs


def run_lowered(fun, tree):
    """What a boundary stages: `fun(*args, **kwargs)` on the raised `tree = (args,
    kwargs)` -> (its results, each raised value's (final qdd, arrays))."""
    (args, kwargs), objs = _raise(tree)
    out = as_callable(fun)(*args, **kwargs)
    return out, _finals(objs)


def grad_call(make, fun, has_aux, with_value, args, kwargs):
    """`grad` / `value_and_grad` of `fun` with mutable hi values among its (not
    differentiated) arguments: `make(g)` is the same transformation of `g` with
    `has_aux=True`; the final states ride in the aux output, then are stored back."""
    low = Lowering((args, kwargs))

    def lowered(*a, **k):
        out, finals = run_lowered(fun, (a, k))
        return (out[0], (out[1], finals)) if has_aux else (out, finals)

    a, k = low.tree
    res = make(lowered)(*a, **k)
    (value, pack), grads = res if with_value else ((None, res[1]), res[0])
    aux, finals = pack if has_aux else (None, pack)
    low.write_back(finals)
    if not with_value:
        return (grads, aux) if has_aux else grads
    return ((value, aux) if has_aux else value), grads


def check_not_differentiated(args, argnums) -> None:
    """A mutable hi value among differentiated arguments is refused (JAX does not
    define its tangent either)."""
    for i in argnums:
        if has_mutable(args[i]):
            raise ArgumentTypeError(
                f"argument {i} is differentiated and holds a mutable hi value (a hijax "
                f"Variable with quasi-dynamic data): its tangent type is not defined",
                hint="differentiate with respect to its arrays (e.g. nnx.with_vars(..., "
                     "hijax=False)), or pass it as a non-differentiated argument")
