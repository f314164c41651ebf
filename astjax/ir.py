"""The IR, Autodidax's shape: a typed SSA form equivalent to a jaxpr.

- `ShapedArray` is the abstract value (shape, dtype, weak_type) of every variable;
  `HostShapedArray` the same type in pinned host memory (JAX's `f32<host>[3]`,
  `aval.memory_space`), and `memory_space_rule` how operations carry it.
- `Var`, `Literal`, `Eqn`, `Jaxpr`, `ClosedJaxpr` are the IR.
- `check_jaxpr` is the executable spec of a well-formed jaxpr.
- The jaxpr printer produces JAX's syntax exactly: the layout combinators of
  `astjax.pretty` with the same document structure as JAX's printer, so line
  breaking at width 80 matches character for character; variables are named in
  printing order (`a`, `b`, ...). A sub-jaxpr reached twice (an inner `jit` called
  twice) or of more than 10 equations is printed once above the program, as JAX's
  `let g = { ... } in` binding, and named by the `name` of the equation holding it.

`astjax.core` re-exports every public name here; import them from there.
"""
from __future__ import annotations

import collections
import itertools
import math
import threading

import numpy as np

from . import dtypes
from .errors import AstjaxError, JaxprTypeError, UNKNOWN  # noqa: F401  (JaxprTypeError: was defined here)
from .errors import ArgumentValueError, InconclusiveDimensionOperation
from .memory import MemorySpace
from .shape_poly import canonical_shape
from .pretty import Brk, Concat, Group, Nest, Text, format_doc, join
from .util import Namer, _letters

# --------------------------------------------------------------------------- avals


_new_aval = object.__new__


def _as_shape(shape) -> tuple:
    """A shape as a tuple of Python ints (the fast path), symbolic dimensions kept
    (`jax.export`'s shape polymorphism: `int()` of one is inconclusive)."""
    try:
        return tuple(map(int, shape))
    except InconclusiveDimensionOperation:
        return canonical_shape(shape)


def _plain_type_only(sharding, manual_axis_type, memory_space):
    """JAX's `ShapedArray(..., sharding=, manual_axis_type=, memory_space=)` keywords:
    astjax's plain type is the one without a layout over partitioned axes, manual axes
    or a memory space other than the device's (typed values: `jax.typeof`, and
    `ShapeDtypeStruct(..., sharding=)`); the others are refused, not dropped."""
    spec = getattr(sharding, "spec", None)
    if sharding is not None and (spec is None or any(p is not None for p in spec)):
        raise ArgumentValueError(
            f"ShapedArray(sharding={sharding!r}): astjax's ShapedArray carries no layout",
            hint="describe a laid-out abstract array with jax.ShapeDtypeStruct(shape, dtype, "
                 "sharding=...)")
    if manual_axis_type is not None and any(getattr(manual_axis_type, f, ()) for f in (
            "varying", "unreduced", "reduced")):
        raise ArgumentValueError(f"ShapedArray(manual_axis_type={manual_axis_type!r}): "
                                 "astjax types manual axes inside shard_map bodies only")
    if memory_space is not None and memory_space != MemorySpace.Device:
        raise ArgumentValueError(f"ShapedArray(memory_space={memory_space!r}): a host value's "
                                 "type is HostShapedArray")


class AbstractValue:
    """The base of every abstract value (JAX's `core.AbstractValue`): ShapedArray and
    its kinds, and `jax.experimental.hijax`'s types."""
    __slots__ = ()


def _long_name(dtype) -> str:
    """A dtype as JAX's types print it in full (`float32`; float0's `void` as `float0`)."""
    return "float0" if dtype == dtypes.float0 else dtype.name


class ShapedArray(AbstractValue):
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type=False, *, sharding=None,
                 manual_axis_type=None, memory_space=None):
        if sharding is not None or manual_axis_type is not None or memory_space is not None:
            _plain_type_only(sharding, manual_axis_type, memory_space)
        self.shape = _as_shape(shape)
        try:
            self.dtype = np.dtype(dtype)
        except TypeError:
            if not isinstance(dtype, dtypes.ExtendedDType) or dtype.aval_type is None:
                raise
            # JAX's ShapedArray of an extended dtype (flax: `ShapedArray(keys.shape,
            # jnp.result_type(keys))`) is that dtype's aval type (typed keys: KeyAval)
            self.__class__ = dtype.aval_type
            self.__init__(shape, dtype, weak_type)
            return
        self.weak_type = bool(weak_type)

    ndim = property(lambda self: len(self.shape))
    sharding = None  # (JAX's aval.sharding) one device: no sharding in the type
    memory_space = MemorySpace.Device   # (JAX's aval.memory_space; `HostShapedArray`)
    size = property(lambda self: math.prod(self.shape))  # (np.prod: 10x the time)

    def update(self, shape=None, dtype=None, weak_type=None):
        # (a plain ShapedArray; what is kept from `self` is normalized already)
        new = _new_aval(ShapedArray)
        new.shape = self.shape if shape is None else _as_shape(shape)
        new.dtype = self.dtype if dtype is None else np.dtype(dtype)
        new.weak_type = self.weak_type if weak_type is None else bool(weak_type)
        return new

    def strip_weak_type(self):
        return self.update(weak_type=False) if self.weak_type else self

    def to_tangent_aval(self):
        """JAX's type of this value's tangents (and cotangents): the same shape, float0
        for integer and boolean dtypes (no tangent space)."""
        return self if dtypes.is_inexact(self.dtype) else self.update(dtype=dtypes.float0)

    to_ct_aval = at_least_vspace = to_tangent_aval   # (JAX's names for the same type)

    # as a leaf of a hijax type (`jax.experimental.hijax`): one array, itself
    def lo_ty(self):
        return [self]

    def lower_val(self, val):
        return [val]

    def raise_val(self, val):
        return val

    def normalize(self):
        return self.strip_weak_type()

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        """JAX's: `float32[3]`; `f32[3]` with `short_dtypes` (as jaxprs print it)."""
        if not short_dtypes:
            return self._long()
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other):
        # a KeyDataAval is this type, annotated for printing: equal to the plain one
        return (type(other) in _PHYSICAL and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def _long(self):
        return f"{_long_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __str__(self):  # JAX's `str(jax.typeof(x))`: `int32[8]`, `~float32[]` if weak
        return ("~" if self.weak_type else "") + self._long()

    def __repr__(self):
        return f"ShapedArray({self._long()}{', weak_type=True' if self.weak_type else ''})"

    def same_type(self, other):
        return self.shape == other.shape and self.dtype == other.dtype


class KeyDataAval(ShapedArray):
    """The aval of a variable holding typed PRNG keys' data (`uint32[..., 2]` for
    threefry2x32). Every pass reads it as that physical type -- it is equal to the plain
    `ShapedArray` and hashes alike -- but the jaxpr printer shows it as JAX types the
    keys: `key<fry>[...]`, the leading (key) axes only. Set where a staged value becomes
    a typed key (`astjax/random/keys.py`, `random_wrap`); `update` keeps the annotation
    while the trailing key-data axes and dtype stay, as for the key-preserving
    structural ops and batching."""
    __slots__ = ("impl", "key_ndim")

    def __init__(self, shape, dtype, impl: str, key_ndim: int = 1):
        super().__init__(shape, dtype)
        self.impl, self.key_ndim = impl, key_ndim  # "fry"; trailing key-data axes

    @classmethod
    def of(cls, aval: ShapedArray, impl: str, key_ndim: int = 1) -> "KeyDataAval":
        return cls(aval.shape, aval.dtype, impl, key_ndim)

    def update(self, shape=None, dtype=None, weak_type=None):
        plain = ShapedArray.update(self, shape, dtype, weak_type)
        k = self.key_ndim
        if (plain.dtype == self.dtype and not plain.weak_type
                and plain.shape[len(plain.shape) - k:] == self.shape[len(self.shape) - k:]):
            return KeyDataAval.of(plain, self.impl, k)
        return plain

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        keys = self.shape[:len(self.shape) - self.key_ndim]
        return f"key<{self.impl}>[{','.join(map(str, keys))}]"

    __hash__ = ShapedArray.__hash__


# the primitives that read their keys' implementation from the operand's type
# (`primitives/prng_ops.py` adds them); an interpreter re-binding one of them types its
# operands as the equation's (`type_keys_as`)
KEY_TYPE_READERS: set = set()


def type_keys_as(variables, values):
    """Type each staged value bound to a typed-key variable of an interpreted program as
    those keys, in place (an outer value can hold the same data untyped): the key
    primitives (`random_split`, ...) read the implementation from their operand's type."""
    for v, x in zip(variables, values):
        aval = getattr(v, "aval", None)
        if type(aval) is KeyDataAval and isinstance(getattr(x, "_var", None), Var):
            have, k = x._var.aval, aval.key_ndim   # (x: a staged value, `core.Tracer`)
            if (type(have) is ShapedArray and have.dtype == aval.dtype and not have.weak_type
                    and have.shape[len(have.shape) - k:] == aval.shape[len(aval.shape) - k:]):
                x._var.aval = KeyDataAval.of(have, aval.impl, k)


# the types every pass reads as the plain physical one (equal to it): a subclass that
# only annotates what the data means for printing and AD (`primitives/edtypes.py`'s
# extended-dtype data) adds itself with `register_physical`
_PHYSICAL = {ShapedArray, KeyDataAval}


def register_physical(cls):
    """Make ShapedArray subclass `cls` a physical annotation: equal to the plain type."""
    _PHYSICAL.add(cls)
    return cls


class HostShapedArray(ShapedArray):
    """The abstract value of an array in pinned host memory (JAX's ShapedArray with
    `memory_space=MemorySpace.Host`, printed `f32<host>[3]`): a different type from the
    device one (unequal, hashed apart), so a compiled program is keyed by where its
    arguments live. `update` keeps the memory space."""
    __slots__ = ()
    memory_space = MemorySpace.Host

    def update(self, shape=None, dtype=None, weak_type=None):
        return in_memory_space(ShapedArray.update(self, shape, dtype, weak_type),
                               MemorySpace.Host)

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        if not short_dtypes:
            return self._long()
        return f"{dtypes.short_name(self.dtype)}<host>[{','.join(map(str, self.shape))}]"

    def _long(self):
        return f"{_long_name(self.dtype)}<host>[{','.join(map(str, self.shape))}]"

    def __eq__(self, other):
        return (type(other) is HostShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type, MemorySpace.Host))


host_avals_seen = [False]   # set once a host aval exists: `memory_space_rule` runs from then


def in_memory_space(aval: ShapedArray, space: MemorySpace) -> ShapedArray:
    """`aval` in memory space `space` (Host: a `HostShapedArray`; else a plain one)."""
    if aval.memory_space is space or type(aval) not in (ShapedArray, HostShapedArray):
        return aval
    out = _new_aval(HostShapedArray if space is MemorySpace.Host else ShapedArray)
    out.shape, out.dtype, out.weak_type = aval.shape, aval.dtype, aval.weak_type
    host_avals_seen[0] = host_avals_seen[0] or space is MemorySpace.Host
    return out


def memory_space_rule(prim, in_avals, out):
    """`out` (an abstract_eval's answer) in the memory space JAX's default rule gives
    an operation on `in_avals`: that of its non-scalar operands, which must agree
    (JAX's ValueError); scalars and an operation without array operands stay on the
    device. Primitives that place their results themselves (`keeps_memory_space`:
    `device_put`) and higher-order ones (their result types come from their bodies)
    are left as they are."""
    if prim.higher_order or getattr(prim, "keeps_memory_space", False):
        return out
    space = prev = None
    for a in in_avals:
        if not a.shape:
            continue
        if prev is not None and a.memory_space is not prev.memory_space:
            raise ArgumentValueError(
                f"memory_space of all inputs passed to `{prim.name}` must be the same. Got "
                f"one operand with type: {prev._long()} and another operand with type: "
                f"{a._long()}", hint="device_put the operands to one memory space")
        prev, space = a, a.memory_space
    if space is not MemorySpace.Host:
        return out
    if prim.multiple_results:
        return [in_memory_space(a, space) for a in out]
    return in_memory_space(out, space)


class TokenAval(ShapedArray):
    """The aval of an XLA token (JAX's `AbstractToken`; the one instance is
    `abstract_token`): a value with no data that orders side effects (`ffi_call`s that
    take and return one). The passes see a `bool[]` it never equals; the printer shows
    `Tok`, the lowering `!stablehlo.token`."""
    __slots__ = ()

    def __init__(self):
        super().__init__((), np.bool_)

    def update(self, shape=None, dtype=None, weak_type=None):
        return self   # (a token has no shape or dtype to change)

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        return "Tok"

    def __repr__(self):   # (also `str`: JAX's `str(jax.typeof(token))`)
        return "AbstractToken()"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, TokenAval)

    def __hash__(self):
        return hash(TokenAval)


abstract_token = TokenAval()


class AbstractRef(ShapedArray):
    """The aval of a mutable array reference (JAX's `AbstractRef`): a `Ref` holding a
    value of aval `inner_aval`, printed `Ref{f32[3]}`. It answers `shape`/`dtype` as its
    inner aval does, but only the state primitives (`astjax/primitives/state.py`) and
    the structured control flow that closes over refs accept it as an operand
    (`core.Builder.add_eqn` refuses it elsewhere); `transforms/discharge.py` turns
    it back into values before any other pass runs."""
    __slots__ = ("inner_aval",)

    def __init__(self, inner_aval: ShapedArray):
        super().__init__(inner_aval.shape, inner_aval.dtype, inner_aval.weak_type)
        self.inner_aval = inner_aval

    def update(self, shape=None, dtype=None, weak_type=None):
        return AbstractRef(self.inner_aval.update(shape, dtype, weak_type))

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        return f"Ref{{{self.inner_aval.str_short(short_dtypes, mesh_axis_types)}}}"

    def __str__(self):   # JAX's `str(jax.typeof(ref))`: `Ref{float32[3]}` (no `~`)
        return f"Ref{{{self.inner_aval._long()}}}"

    def __repr__(self):
        return str(self)

    def __eq__(self, other):
        return type(other) is AbstractRef and self.inner_aval == other.inner_aval

    def __hash__(self):
        return hash((AbstractRef, self.inner_aval))

    def same_type(self, other):
        return type(other) is AbstractRef and self.inner_aval.same_type(other.inner_aval)

# ------------------------------------------------------------------------------ IR


class Var:
    __slots__ = ("aval", "hint", "__weakref__")
    _ids = itertools.count()

    def __init__(self, aval: ShapedArray, hint: str | None = None):
        self.aval = aval
        self.hint = hint

    def __repr__(self):
        return f"Var({self.hint or id(self) % 10000}:{self.aval.str_short(True)})"


class Literal:
    __slots__ = ("val", "aval")

    def __init__(self, val, aval: ShapedArray):
        self.val = val
        self.aval = aval

    def __repr__(self):
        return f"Literal({self.val})"


Atom = Var | Literal


class Eqn:
    __slots__ = ("primitive", "invars", "outvars", "params", "source_info")

    def __init__(self, primitive, invars, outvars, params, source_info=UNKNOWN):
        self.primitive, self.invars, self.outvars = primitive, list(invars), list(outvars)
        self.params, self.source_info = params, source_info

    def replace(self, **kw):
        d = {k: getattr(self, k) for k in self.__slots__}
        d.update(kw)
        return Eqn(**d)

    @property
    def effects(self):
        """JAX's `JaxprEqn.effects`: empty for a pure primitive; an effectful one's
        equation (a callback, `debug.print`, a check) names its primitive."""
        return frozenset([self.primitive.name]) if getattr(
            self.primitive, "effectful", False) else frozenset()

    def __repr__(self):
        return pp_eqn_str(self)


class Jaxpr:
    __slots__ = ("constvars", "invars", "outvars", "eqns", "__weakref__")

    def __init__(self, constvars, invars, outvars, eqns):
        self.constvars, self.invars = list(constvars), list(invars)
        self.outvars, self.eqns = list(outvars), list(eqns)

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])

    def __str__(self):
        return pp_jaxpr(self)

    __repr__ = __str__


class ClosedJaxpr:
    __slots__ = ("jaxpr", "consts")

    def __init__(self, jaxpr: Jaxpr, consts=()):
        assert len(consts) == len(jaxpr.constvars)
        self.jaxpr, self.consts = jaxpr, list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)
    # (JAX's ClosedJaxpr reads these through to its jaxpr too: haiku's jaxpr_info walks
    # a custom_jvp_call's `call_jaxpr` as a Jaxpr)
    constvars = property(lambda self: self.jaxpr.constvars)
    invars = property(lambda self: self.jaxpr.invars)
    outvars = property(lambda self: self.jaxpr.outvars)
    # JAX's other name for the consts (custom interpreters read `closed_jaxpr.literals`)
    literals = property(lambda self: self.consts)

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__

# ------------------------------------------------------------------- type checking


def check_jaxpr(jaxpr: Jaxpr | ClosedJaxpr) -> None:
    """The executable spec of a well-formed jaxpr: every variable is bound once before
    use, every equation's output avals are what abstract_eval gives for its inputs
    (weak types aside), and nested jaxprs are well-formed too."""
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    env: set[Var] = set()

    def bind_var(v, where):
        if not isinstance(v, Var):
            raise JaxprTypeError(f"{where}: binder {v} is not a Var", loc=UNKNOWN)
        if v in env:
            raise JaxprTypeError(f"{where}: variable {v} bound twice", loc=UNKNOWN)
        env.add(v)

    def read(a, where):
        if isinstance(a, Literal):
            if np.shape(a.val) != a.aval.shape:
                raise JaxprTypeError(f"{where}: literal {a} has the wrong shape", loc=UNKNOWN)
            return
        if a not in env:
            raise JaxprTypeError(f"{where}: variable {a} used before it is bound", loc=UNKNOWN)

    for v in jaxpr.constvars + jaxpr.invars:
        bind_var(v, "binders")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i} ({eqn.primitive.name})"
        for a in eqn.invars:
            read(a, where)
        for p in eqn.params.values():
            for sub in _sub_jaxprs(p):
                check_jaxpr(sub)
        try:
            out = eqn.primitive.abstract_eval(*[a.aval for a in eqn.invars], **eqn.params)
        except AstjaxError as e:
            raise JaxprTypeError(f"{where}: {e.message}", loc=eqn.source_info) from None
        out = out if eqn.primitive.multiple_results else [out]
        if len(out) != len(eqn.outvars):
            raise JaxprTypeError(f"{where}: {len(eqn.outvars)} outputs, expected {len(out)}",
                                 loc=eqn.source_info)
        for v, a in zip(eqn.outvars, out):
            if not v.aval.same_type(a):
                raise JaxprTypeError(f"{where}: output typed {v.aval.str_short(True)}, "
                                     f"rule gives {a.str_short(True)}", loc=eqn.source_info)
            bind_var(v, where)
    for a in jaxpr.outvars:
        read(a, "outputs")


def _sub_jaxprs(p):
    if isinstance(p, (Jaxpr, ClosedJaxpr)):
        yield p
    elif isinstance(p, tuple):
        for q in p:
            yield from _sub_jaxprs(q)


def sub_jaxprs(params):
    for p in params.values():
        yield from _sub_jaxprs(p)


def map_sub_jaxprs(fn, params: dict) -> dict:
    """`params` with each jaxpr in them replaced by `fn(jaxpr)` (a ClosedJaxpr's, its
    consts kept; those in a tuple too): a pass run on an equation's bodies. The same
    dict when it holds none."""
    for v in params.values():
        if isinstance(v, (ClosedJaxpr, Jaxpr)) or isinstance(v, tuple) and any(
                isinstance(x, (ClosedJaxpr, Jaxpr)) for x in v):
            return {k: _map_jaxprs(fn, v) for k, v in params.items()}
    return params


def _map_jaxprs(fn, v):
    if isinstance(v, ClosedJaxpr):
        return ClosedJaxpr(fn(v.jaxpr), v.consts)
    if isinstance(v, Jaxpr):
        return fn(v)
    if isinstance(v, tuple) and any(isinstance(x, (ClosedJaxpr, Jaxpr)) for x in v):
        return tuple(_map_jaxprs(fn, x) for x in v)
    return v


def all_eqns(jaxpr):
    """Every equation of `jaxpr` (a Jaxpr or ClosedJaxpr) and of the jaxprs nested in
    its equations' params, depth first: an equation, then those inside it."""
    for eqn in (jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr).eqns:
        yield eqn
        for sub in sub_jaxprs(eqn.params):
            yield from all_eqns(sub)

# ------------------------------------------------------------------ jaxpr printing


def literal_str(lit) -> str:
    val = np.asarray(lit.val)
    s = str(val.item()) if val.ndim == 0 else "[...]"
    return f"{s}:{lit.aval.str_short(True)}"


def _var(a, names, binder=False, used=None):
    if isinstance(a, Literal):
        return literal_str(a)
    if binder and used is not None and a not in used:
        return "_"   # an equation's output nothing reads (JAX's DropVar)
    return names(a)


# Types printed with more than the aval (JAX's layouts `f32[4@x]`, varying manual axes
# `f32[2]{V:x}`): Var -> text, while one jaxpr is printed (`pp_jaxpr(types=)`, and a
# primitive's `pp_types(eqn)` for the jaxprs in its params, e.g. a shard_map body).
_printing = threading.local()


def _type_texts() -> list:
    stack = getattr(_printing, "types", None)
    if stack is None:
        stack = _printing.types = [{}]
    return stack


def _type_str(v):
    t = _type_texts()[-1].get(v) if isinstance(v, Var) else None
    return v.aval.str_short(True) if t is None else t


def pp_vars(vs, names, sep="", shapes=False, binder=False, used=None):
    items = [Text(_var(v, names, binder, used) + (":" + _type_str(v) if shapes else ""))
             for v in vs]
    return Nest(2, Group(join(Concat([Text(sep), Group(Brk())]), items)))


def param_str(v) -> str:
    if isinstance(v, np.dtype):
        return str(v)
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    if callable(v) and hasattr(v, "__name__") and not isinstance(v, type):
        return v.__name__
    return str(v)


def pp_kv(k, v, names):
    if type(v) is tuple and v and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v):
        pv = Group(Concat([Nest(2, Concat([Text("("), Brk(""),
                                           join(Brk(), [_pp_jaxpr(j, names) for j in v])])),
                           Brk(""), Text(")")]))
    elif isinstance(v, (Jaxpr, ClosedJaxpr)):
        pv = _pp_jaxpr(v, names)
    else:
        pv = Text(param_str(v))
    return Text(f"{k}=") + pv


def pp_params(params, names, first=None):
    if not params:
        return Concat([])
    first = [k for k in first or () if k in params]
    kvs = [pp_kv(k, params[k], names) for k in first + sorted(set(params) - set(first))]
    return Group(Concat([Nest(2, Concat([Text("["), Brk(""), join(Brk(), kvs)])),
                         Brk(""), Text("]")]))


def pp_eqn(eqn, names, used=None):
    custom = getattr(eqn.primitive, "pp_rule", None)   # JAX's `pp_eqn_rules` (refs'
    if custom is not None:                             # `c[0] <- ...`)
        return custom(eqn, lambda a: _var(a, names),
                      lambda v: pp_vars([v], names, shapes=True, binder=True, used=used),
                      used is not None and eqn.outvars and eqn.outvars[0] not in used)
    call = getattr(eqn.primitive, "pp_call", None)   # `jit`: its body's names follow
    suggest = getattr(names, "suggest", None)        # the call's (JAX's _pjit_pp_rule)
    if call is not None and suggest is not None:
        body = eqn.params[call]
        body = body.jaxpr if isinstance(body, ClosedJaxpr) else body
        if body not in names.shared:
            suggest(body.invars, eqn.invars)
            suggest(body.outvars, eqn.outvars)
    lhs = (pp_vars(eqn.outvars, names, shapes=True, binder=True, used=used)
           if eqn.outvars else None)
    hook = getattr(eqn.primitive, "pp_types", None)
    inner = hook(eqn) if hook is not None else None
    if inner:
        _type_texts().append({**_type_texts()[-1], **inner})
    try:
        shown = getattr(eqn.primitive, "pp_shown", None)   # (JAX's pp rules that hide or
        params = pp_params(shown(eqn.params) if shown else eqn.params,  # rename params)
                           names, (call or getattr(eqn.primitive, "pp_named", False))
                           and ("name",))
    finally:
        if inner:
            _type_texts().pop()
    name = getattr(eqn.primitive, "pp_name", None)   # (JAX's name of one use of it)
    rhs = [Text(name(eqn.params) if name else eqn.primitive.name), params,
           Text(" ") + pp_vars(eqn.invars, names)]
    if lhs is not None:
        return Concat([lhs, Text(" = ")] + rhs)
    return Concat(rhs)


def _skeleton(jaxpr, names, used=None):
    consts = pp_vars(jaxpr.constvars, names, shapes=True, binder=True)
    ins = pp_vars(jaxpr.invars, names, shapes=True, binder=True)
    eqns = join(Brk("; "), [pp_eqn(e, names, used) for e in jaxpr.eqns])
    outs = Concat([Text("("), pp_vars(jaxpr.outvars, names, sep=","),
                   Text(")" if len(jaxpr.outvars) != 1 else ",)")])
    return Group(Nest(2, Concat([
        Text("{ lambda "), consts, Text("; "), ins, Text(". let"),
        Nest(2, Brk() + eqns), Brk(), Text("in "), outs])) + Text(" }"))


def _pp_jaxpr(jaxpr, names, top=False):
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    shared = getattr(names, "shared", None)
    if not top and shared and jaxpr in shared:
        return Text(shared[jaxpr])   # printed once, as `let <name> = ... in`, above
    used = None
    if top:   # JAX prints `_` for the unread outputs of the outer jaxpr's equations
        used = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
        used.update(v for v in jaxpr.outvars if isinstance(v, Var))
    return _skeleton(jaxpr, names, used)


class _PpNames:
    """Variable names and shared sub-jaxprs while one jaxpr is printed (JAX's
    `JaxprPpContext`): letters in printing order, skipping the shared jaxprs' names."""

    def __init__(self):
        self.names: dict = {}
        self.shared: dict = {}   # Jaxpr -> its `let` name
        self.counter = 0

    def __call__(self, v, base=""):
        name = self.names.get(v)
        if name is None:
            name = _letters(self.counter)
            self.counter += 1
            while name in self.shared.values():
                name = _letters(self.counter)
                self.counter += 1
            self.names[v] = name
        return name

    def suggest(self, for_vars, like_vars):
        """Name `for_vars` (a call's body binders) as `like_vars` (its operands or
        results) where they are distinct fresh variables (JAX's
        `suggest_same_var_names`)."""
        if len(for_vars) != len(like_vars):
            return
        taken = set()
        for f, like in zip(for_vars, like_vars):
            if (isinstance(like, Var) and like not in taken and isinstance(f, Var)
                    and f not in self.names):
                taken.add(like)
                self.names[f] = self(like)


def _shared_jaxprs(top, types) -> list:
    """(name, Jaxpr, types) of the sub-jaxprs printed once above the program, as JAX
    picks them (`pp_toplevel_jaxpr`): those reached more than once (an inner `jit`
    called twice) and those of more than 10 equations; a sub-jaxpr is named by the
    `name` parameter of the first equation reaching it (else `jaxpr`), suffixed to be
    unique, and printed with the types in effect there (`types` at the top, and each
    holding equation's `pp_types`: a shard_map body's varying axes)."""
    names: dict = {}
    counts: dict = {}
    typed = {top: types}
    queue = collections.deque([top])
    while queue:
        jaxpr = queue.popleft()
        counts[jaxpr] = counts.get(jaxpr, 0) + 1 + (
            jaxpr is not top and len(jaxpr.eqns) > SHARED_EQNS)
        for eqn in jaxpr.eqns:
            name = eqn.params.get("name")
            subs = [s.jaxpr if isinstance(s, ClosedJaxpr) else s for s in sub_jaxprs(eqn.params)]
            queue.extend(subs)
            hook = getattr(eqn.primitive, "pp_types", None) if subs else None
            inner = hook(eqn) if hook is not None else None
            for sub in subs:
                typed.setdefault(sub, {**typed[jaxpr], **inner} if inner else typed[jaxpr])
            if isinstance(name, str):
                for s in subs:
                    names.setdefault(s, name.strip("<>"))
    taken: dict = {}
    out = []
    for jaxpr, c in counts.items():
        if c == 1:
            continue
        name = names.get(jaxpr, "jaxpr")
        k = taken.get(name, 0)
        taken[name] = k + 1
        if k:
            name += str(k)
            taken[name] = taken.get(name, 0) + 1
        out.append((name, jaxpr, typed[jaxpr]))
    return out


# A sub-jaxpr of more than this many equations is printed as a `let` binding (JAX's
# heuristic in `pp_toplevel_jaxpr`).
SHARED_EQNS = 10


def pp_jaxpr(jaxpr, width=80, types=None) -> str:
    """The jaxpr in JAX's syntax; `types` (Var -> text) overrides printed types."""
    _type_texts().append(dict(types or {}))
    try:
        if isinstance(jaxpr, ClosedJaxpr):
            jaxpr = jaxpr.jaxpr
        names = _PpNames()
        shared = _shared_jaxprs(jaxpr, _type_texts()[-1])
        names.shared.update((j, n) for n, j, _ in shared)
        used = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
        used.update(v for v in jaxpr.outvars if isinstance(v, Var))
        names.names.update((v, "_") for e in jaxpr.eqns for v in e.outvars if v not in used)
        docs = []
        for n, j, t in shared:
            _type_texts().append(t)
            try:
                docs.append(Concat([Text(f"let {n} = "), _skeleton(j, names), Text(" in"),
                                    Brk()]))
            finally:
                _type_texts().pop()
        return format_doc(Concat(docs + [_pp_jaxpr(jaxpr, names, top=True)]), width)
    finally:
        _type_texts().pop()


def pp_eqn_str(eqn) -> str:
    return format_doc(pp_eqn(eqn, Namer("letters")))
