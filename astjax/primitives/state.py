"""Mutable array references (JAX's `jax.ref`): `new_ref`, `get`, `swap`, `addupdate`,
`freeze`, `empty_ref` and `free_ref`, and the eager `Ref`.

A reference is a value of aval `core.AbstractRef` (printed `Ref{f32[3]}`); staged, it
is a `core.RefTracer`, whose indexing binds the primitives here (`r[...]` is `get`,
`r[0] = v` is `swap` with its result unused, `jax.ref.addupdate(r, i, v)` is
`addupdate`). An index is normalized to one entry per axis (`ref_indexing.Indexer`): a static
slice, or an integer (scalar or array) whose value is an operand of the equation.

Nothing but `transforms/discharge.py` consumes these equations: it replaces each
reference by the value it holds, threaded through the program, before
differentiation, batching or lowering run. So the primitives' rules are the NumPy
reference (`impl`, on a mutable `Box`), abstract evaluation, the printing JAX uses
(`c:f32[3] <- b[...]`, `b[0] <- 5.0:f32[]`, `b[:] += a`) and the value-level rule
`discharge`, which says what an equation computes on the value a reference holds;
the other kinds are marked unsupported with that reason.

Outside staging, `new_ref(x)` is an eager `Ref` holding a device array that its
indexing reads and replaces, as JAX's eager `Ref` does.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import AbstractRef, ShapedArray, bind
from ..errors import (ArgumentTypeError, AstjaxError, JAXValueError,
                      NotImplementedInAstjaxError, user_location)
from ..pretty import Concat, Text
from .base import mark_unsupported, register
from .ref_indexing import make_indexer, np_index, read_value, write_numpy, write_value
from .structural import convert_element_type, copy_p, full

__all__ = ["AbstractRef", "Ref", "Box", "new_ref", "empty_ref", "free_ref", "freeze",
           "ref_get", "ref_set", "ref_swap", "ref_addupdate", "is_ref",
           "new_ref_p", "empty_ref_p", "free_ref_p", "freeze_p", "get_p", "swap_p",
           "addupdate_p", "STATE_PRIMITIVES", "RefEffectError"]

_DISCHARGED = ("references are discharged into values (transforms/discharge.py) before "
               "this pass runs; a reference created outside the transformed function "
               "cannot be used inside it")


def _unsupported_after_discharge(p, kinds=("lowering", "batch", "jvp")):
    for kind in kinds:
        mark_unsupported(p, kind, _DISCHARGED)


class RefEffectError(AstjaxError):
    """A store into a reference from outside a transformation that the transformation
    cannot express: a differentiated value under `grad`/`jvp`/`vjp`, any store into an
    unbatched reference under `vmap` (JAX raises a plain `Exception` there)."""


class Box:
    """What a reference is in the NumPy reference interpreter (`impl` rules): a
    mutable holder of one NumPy array."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = np.array(value, copy=True)

# ---------------------------------------------------------------------- printing


def _pp_ref(atom, ref, indexer, idx_atoms):
    docs = [str(a.val) if isinstance(a, core.Literal) else atom(a) for a in idx_atoms]
    return Text(atom(ref) + indexer.pretty(docs))


def _ref_check(name, ref_aval):
    if type(ref_aval) is not AbstractRef:
        raise JAXValueError(f"`{name}` must be called on `Ref` types: {ref_aval}.")


def _value_check(name, ref_aval, val_aval, indexer):
    if type(val_aval) is AbstractRef:
        raise JAXValueError("Cannot store a Ref into another Ref. Did you forget to load "
                            "from it using `[...]`?")
    expected = indexer.out_shape
    if val_aval.shape != expected:
        raise JAXValueError(f"Invalid shape for `{name}`. Ref shape: {ref_aval.shape}. "
                            f"Expected shape: {expected}. Value shape: {val_aval.shape}.",
                            hint="the value must have exactly the indexed shape (a Ref "
                                 "does not broadcast)")
    if val_aval.dtype != ref_aval.dtype:
        raise JAXValueError(f"Invalid dtype for `{name}`. Ref dtype: {ref_aval.dtype}. "
                            f"Value dtype: {val_aval.dtype}.")

# ----------------------------------------------------------------------- new_ref

new_ref_p = core.new_primitive("new_ref")
new_ref_p.takes_refs = True
new_ref_p.effectful = True


def _new_ref_ae(x, *, memory_space=None, kind=None):
    if type(x) is AbstractRef:
        raise JAXValueError("new_ref: the initial value is a Ref; read it first (r[...])")
    return AbstractRef(ShapedArray(x.shape, x.dtype, x.weak_type))


register(new_ref_p, impl=lambda x, **_: Box(x), abstract_eval=_new_ref_ae)
new_ref_p.discharge = lambda x, **_: x   # the reference's first value
_unsupported_after_discharge(new_ref_p)

# --------------------------------------------------------------------- empty_ref

empty_ref_p = core.new_primitive("empty_ref")
empty_ref_p.effectful = True


def _empty_ref_ae(*, ty, memory_space=None):
    return AbstractRef(ty)


register(empty_ref_p, impl=lambda *, ty, **_: Box(np.zeros(ty.shape, ty.dtype)),
         abstract_eval=_empty_ref_ae)
# its value before the first store is unspecified (JAX's too); zeros here
empty_ref_p.discharge = lambda *, ty, **_: full(ty.shape, 0, ty.dtype)
_unsupported_after_discharge(empty_ref_p)

# ---------------------------------------------------------------------- free_ref

free_ref_p = core.new_primitive("free_ref", multiple_results=True)
free_ref_p.takes_refs = True
free_ref_p.effectful = True


def _free_ref_ae(ref):
    _ref_check("free_ref", ref)
    return []


register(free_ref_p, impl=lambda box: [], abstract_eval=_free_ref_ae)  # (staging refuses
# a use after free: `RefTracer.freed`)
free_ref_p.discharge = lambda ref: []
_unsupported_after_discharge(free_ref_p)

# ------------------------------------------------------------------------ freeze

freeze_p = core.new_primitive("freeze")
freeze_p.takes_refs = True
freeze_p.effectful = True


def _freeze_ae(ref):
    _ref_check("freeze", ref)
    return ref.inner_aval


register(freeze_p, impl=lambda box: box.value.copy(), abstract_eval=_freeze_ae)
freeze_p.discharge = lambda ref: ref
_unsupported_after_discharge(freeze_p)

# --------------------------------------------------------------------------- get

get_p = core.new_primitive("get")
get_p.takes_refs = True
get_p.effectful = True


def _get_ae(ref, *idx, indexer):
    _ref_check("get", ref)
    return ShapedArray(indexer.out_shape, ref.dtype, ref.weak_type)


def _get_pp(eqn, atom, out_binder, dropped):
    ref, *idx = eqn.invars
    return Concat([out_binder(eqn.outvars[0]), Text(" <- "),
                   _pp_ref(atom, ref, eqn.params["indexer"], idx)])


def _get_jvp(primals, tangents, **params):
    # a read of a reference from outside (`discharge.at_boundary`) is bound as it is;
    # this rule runs only when the reference itself is differentiated (JAX: ValueError)
    aval = core.get_aval(primals[0])
    raise JAXValueError(f"Expected cotangent type {aval} but got "
                        f"{ShapedArray(aval.shape, aval.dtype)}: a mutable array "
                        f"reference cannot be differentiated",
                        hint="differentiate with respect to its value: pass r[...], "
                             "or jax.freeze(r)")


register(get_p, impl=lambda box, *idx, indexer: np.array(box.value[np_index(indexer, idx)]),
         abstract_eval=_get_ae, jvp=_get_jvp)
get_p.pp_rule = _get_pp
get_p.discharge = lambda x, *idx, indexer: read_value(x, indexer, idx)
_unsupported_after_discharge(get_p, ("lowering", "batch"))

# -------------------------------------------------------------------------- swap

swap_p = core.new_primitive("swap")
swap_p.takes_refs = True
swap_p.effectful = True


def _swap_ae(ref, val, *idx, indexer):
    _ref_check("swap", ref)
    _value_check("swap", ref, val, indexer)
    return ShapedArray(indexer.out_shape, ref.dtype, ref.weak_type)


def _swap_impl(box, val, *idx, indexer):
    old = np.array(box.value[np_index(indexer, idx)])
    write_numpy(box.value, indexer, idx, val)
    return old


def _swap_pp(eqn, atom, out_binder, dropped):
    ref, val, *idx = eqn.invars
    target = _pp_ref(atom, ref, eqn.params["indexer"], idx)
    if dropped:   # a store whose old value nothing reads: `b[0] <- v`
        return Concat([target, Text(" <- "), Text(atom(val))])
    return Concat([out_binder(eqn.outvars[0]), Text(", "), target, Text(" <- "), target,
                   Text(", "), Text(atom(val))])


def _swap_discharge(x, val, *idx, indexer):
    return read_value(x, indexer, idx), write_value(x, indexer, idx, val)


def _store_jvp(what):
    """The JVP of a store: only a reference from outside the differentiated function
    reaches differentiation (`discharge.at_boundary`), and it is not differentiated, so
    a differentiated value may not be stored into it (JAX's error; a store of a value
    with a zero tangent is bound as it is, without this rule)."""
    def rule(primals, tangents, **params):
        raise RefEffectError(
            f"performing {what} operation with a differentiated value on a "
            f"non-differentiated array reference of type {core.get_aval(primals[0])}. Move "
            f"the array reference to be an argument of the differentiated function?",
            loc=core.current_source_info())
    return rule


register(swap_p, impl=_swap_impl, abstract_eval=_swap_ae, jvp=_store_jvp("a set/swap"))
swap_p.pp_rule = _swap_pp
swap_p.discharge = _swap_discharge
_unsupported_after_discharge(swap_p, ("lowering", "batch"))

# --------------------------------------------------------------------- addupdate

addupdate_p = core.new_primitive("addupdate", multiple_results=True)
addupdate_p.takes_refs = True
addupdate_p.effectful = True


def _addupdate_ae(ref, val, *idx, indexer):
    _ref_check("addupdate", ref)
    _value_check("addupdate", ref, val, indexer)
    return []


def _addupdate_impl(box, val, *idx, indexer):
    write_numpy(box.value, indexer, idx, val, accumulate=True)
    return []


def _addupdate_pp(eqn, atom, out_binder, dropped):
    ref, val, *idx = eqn.invars
    return Concat([_pp_ref(atom, ref, eqn.params["indexer"], idx), Text(" += "),
                   Text(atom(val))])


register(addupdate_p, impl=_addupdate_impl, abstract_eval=_addupdate_ae,
         jvp=_store_jvp("an addupdate"))
addupdate_p.pp_rule = _addupdate_pp
addupdate_p.discharge = lambda x, val, *idx, indexer: write_value(
    x, indexer, idx, val, accumulate=True)
_unsupported_after_discharge(addupdate_p, ("lowering", "batch"))

STATE_PRIMITIVES = (new_ref_p, empty_ref_p, free_ref_p, freeze_p, get_p, swap_p, addupdate_p)
for _p in (free_ref_p, freeze_p, get_p, swap_p, addupdate_p):
    _p.ref_operand = True   # operand 0 is the reference the equation reads or writes

# ------------------------------------------------------------------- the eager Ref


class _RefMeta(type):
    def __instancecheck__(cls, x):   # a staged reference is a Ref too, as in JAX
        return type.__instancecheck__(cls, x) or isinstance(x, core.RefTracer)


class Ref(metaclass=_RefMeta):
    """A mutable array reference outside staging (`jax.Ref`): `new_ref(x)` holds a copy
    of `x`'s device array; indexing reads it (`r[...]`, `r[1:]`) and stores replace it
    (`r[0] = v`, `r[...] += 1`). Inside a staged function the same operations are
    equations on a `core.RefTracer`. Not an array: `r + 1` is a TypeError."""
    __slots__ = ("_value", "_aval", "_freed", "__weakref__")

    def __init__(self, value, aval):
        self._value, self._aval, self._freed = value, aval, False

    aval = property(lambda self: self._aval)
    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: self._aval.ndim)
    size = property(lambda self: self._aval.size)
    weak_type = property(lambda self: self._aval.weak_type)
    # (JAX's: its value's layout)
    sharding = property(lambda self: self._value.sharding)
    committed = property(lambda self: bool(getattr(self._value, "committed", False)))

    def __repr__(self):
        return "Ref" + repr(self._value)[5:]

    def _store(self, value):
        """Hold `value` (of the reference's type; its weak flag is the reference's)."""
        if core.get_aval(value).weak_type != self._aval.weak_type:
            value = convert_element_type(value, self._aval.dtype, self._aval.weak_type)
        self._value = value

    def __getitem__(self, idx):
        return ref_get(self, idx)

    def __setitem__(self, idx, value):
        ref_set(self, idx, value)

    def __len__(self):
        if not self.shape:
            raise ArgumentTypeError("len() of unsized object")
        return self.shape[0]

    def get(self, idx=()):
        """The value at `idx` (`r[idx]`)."""
        return ref_get(self, idx)

    def set(self, value, idx=()):
        """Store `value` at `idx` (`r[idx] = value`)."""
        ref_set(self, idx, value)

    def swap(self, value, idx=()):
        """Store `value` at `idx`, returning what was there."""
        return ref_swap(self, idx, value)

    def addupdate(self, value, idx=()):
        """Add `value` into the reference at `idx`."""
        ref_addupdate(self, idx, value)

    @property
    def at(self):
        raise NotImplementedInAstjaxError("`Ref.at` is not supported (JAX raises "
                                          "NotImplementedError too)", loc=user_location(2))


def is_ref(x) -> bool:
    """Whether `x` is a mutable array reference (staged or eager)."""
    return isinstance(x, (Ref, core.RefTracer))


class _Ops:
    """The operations a `core.RefTracer` dispatches to (through its aval's `ops`)."""
    get = staticmethod(lambda r, idx: ref_get(r, idx))
    set = staticmethod(lambda r, idx, v: ref_set(r, idx, v))
    swap = staticmethod(lambda r, idx, v: ref_swap(r, idx, v))
    addupdate = staticmethod(lambda r, idx, v: ref_addupdate(r, idx, v))


AbstractRef.ops = _Ops

# ------------------------------------------------------------------ the wrappers


def _eager(ref):
    """Whether an operation on `ref` runs now: an eager `Ref` outside staging (inside,
    it is an operand of the staged equation, as a closed-over array is)."""
    return type(ref) is Ref and core.current_builder() is None


def _check_live(ref, what):
    """A located error unless `ref` is a reference this program may use."""
    if type(ref) is Ref:
        if ref._freed:
            raise JAXValueError(f"`{what}` must be called on `Ref` types: the Ref was "
                                f"freed with free_ref")
        return
    if not isinstance(ref, core.RefTracer):
        aval = core.get_aval(ref) if core.is_array_value(ref) else type(ref).__name__
        raise JAXValueError(f"`{what}` must be called on `Ref` types: {aval}.")
    if ref.freed:
        raise JAXValueError(f"`{what}` must be called on `Ref` types: the Ref was freed "
                            f"with free_ref (its value is gone)")


def _implicit_cast(dtype, value):
    """JAX's implicit cast of a stored value: a weak float into a float reference, an
    integer into an integer one."""
    if is_ref(value):
        raise JAXValueError("Cannot store a Ref into another Ref. Did you forget to load "
                            "from it using `[...]`?")
    a = core.get_aval(value)
    if ((a.weak_type and dtypes.is_float(dtype) and dtypes.is_float(a.dtype))
            or (dtypes.is_int(dtype) and dtypes.is_int(a.dtype))):
        if a.dtype != dtype or a.weak_type:
            return convert_element_type(value, dtype)
    return value


def new_ref(init_val, *, memory_space=None, kind=None):
    """A mutable array reference holding `init_val` (`jax.new_ref`): a `Ref` outside
    staging, a staged reference (`core.RefTracer`) inside."""
    if is_ref(init_val):
        raise JAXValueError("new_ref: the initial value is a Ref; read it first (r[...])")
    if core.current_builder() is None:
        return Ref(bind(copy_p, init_val), AbstractRef(core.get_aval(init_val)))
    return bind(new_ref_p, init_val, memory_space=memory_space, kind=kind)


def empty_ref(ty, *, memory_space=None):
    """A reference of aval `ty` (`jax.typeof(x)`, or a ShapeDtypeStruct) whose value is
    unspecified until stored (`jax.empty_ref`)."""
    try:
        aval = ShapedArray(ty.shape, dtypes.canonicalize(ty.dtype), getattr(ty, "weak_type", False))
    except AttributeError:
        raise ArgumentTypeError(f"empty_ref takes a type with a shape and a dtype "
                                f"(jax.typeof(x)), got {type(ty).__name__}") from None
    if core.current_builder() is None:
        return Ref(bind(copy_p, np.zeros(aval.shape, aval.dtype)), AbstractRef(aval))
    return bind(empty_ref_p, ty=aval, memory_space=memory_space)


def free_ref(ref):
    """Release `ref` (`jax.free_ref`): reading or writing it afterwards is an error."""
    _check_live(ref, "free_ref")
    if _eager(ref):
        ref._freed = True
        return None
    bind(free_ref_p, ref)
    ref.freed = True
    return None


def freeze(ref):
    """The value `ref` holds, as an array (`jax.freeze`)."""
    _check_live(ref, "freeze")
    if _eager(ref):
        return ref._value
    return bind(freeze_p, ref)


def _index(ref, idx, what):
    return make_indexer(ref.shape, () if idx is None else idx, what)


def ref_get(ref, idx=None):
    """`ref[idx]` (`jax.ref.get`): the indexed elements' value, an array."""
    _check_live(ref, "get")
    indexer, ops = _index(ref, idx, "get")
    if _eager(ref):
        return read_value(ref._value, indexer, ops)
    return bind(get_p, ref, *ops, indexer=indexer)


def ref_swap(ref, idx, value, _function_name="swap"):
    """Store `value` at `ref[idx]`, returning the previous value (`jax.ref.swap`)."""
    _check_live(ref, _function_name)
    value = _implicit_cast(ref.dtype, value)
    indexer, ops = _index(ref, idx, _function_name)
    if _eager(ref):
        _value_check("swap", ref.aval, core.get_aval(value), indexer)
        old = read_value(ref._value, indexer, ops)
        ref._store(write_value(ref._value, indexer, ops, value))
        return old
    return bind(swap_p, ref, value, *ops, indexer=indexer)


def ref_set(ref, idx, value):
    """`ref[idx] = value` (`jax.ref.set`)."""
    ref_swap(ref, idx, value, "set")


def ref_addupdate(ref, idx, x):
    """Add `x` into `ref[idx]` (`jax.ref.addupdate`)."""
    _check_live(ref, "addupdate")
    x = _implicit_cast(ref.dtype, x)
    indexer, ops = _index(ref, idx, "addupdate")
    if _eager(ref):
        _value_check("addupdate", ref.aval, core.get_aval(x), indexer)
        ref._store(write_value(ref._value, indexer, ops, x, accumulate=True))
        return
    bind(addupdate_p, ref, x, *ops, indexer=indexer)
