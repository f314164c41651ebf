"""The IR and the machinery that builds it.

- The IR itself -- `ShapedArray`, `Var`, `Literal`, `Eqn`, `Jaxpr`, `ClosedJaxpr`,
  `check_jaxpr` and the jaxpr printer -- lives in `astjax/ir.py`; core re-exports it.
- `Primitive` plus one registry per rule kind (impl, abstract_eval, jvp, transpose,
  batch, lowering, source). Primitive modules fill them in one block each.
- `Builder` stages equations; `Tracer` is a staged value inside a builder. The front
  end runs converted user code with Tracers as arguments, and transforms run their
  rules the same way, so every IR construction goes through `bind`.
- `eval_reference` is the NumPy reference interpreter (`eval_jaxpr`: JAX's, by `bind`).
- Tracer operators and NumPy-protocol dispatch are installed by the numpy layer
  (`astjax/numpy/array_methods.py`); core never imports it.
"""
from __future__ import annotations

import abc
import functools
import weakref
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np

from . import dtypes, name_stack, tree_util, util, value_tables
from .name_stack import source_info_context  # noqa: F401  (core.source_info_context)
from .gc_pause import collector_paused  # noqa: F401  (core.collector_paused)
from .errors import (ConcretizationError, EscapedTracerError, JAXTypeError, UNKNOWN,
                     NotImplementedInAstjaxError, SourceInfo, TracerArrayConversionError,
                     TracerBoolConversionError, TracerIntegerConversionError, user_location)
from .shape_poly_expr import max_dim, min_dim  # noqa: F401  (JAX's jax.core names)
from .trace_state import (ParamDict, Trace, Value, _state, ensure_compile_time_eval,  # noqa: F401
                          eval_context)   # (JAX's jax.core names; `_state`: what is current)
from .trace_state import push_builder as _push_builder, pop_builder as _pop_builder
from .ir import (AbstractRef, AbstractValue, Atom, ClosedJaxpr, Eqn, Jaxpr, JaxprTypeError,  # noqa: F401
                 Literal, ShapedArray, TokenAval, Var, abstract_token, all_eqns, check_jaxpr,
                 map_sub_jaxprs, sub_jaxprs, KEY_TYPE_READERS, type_keys_as)
from .axis_env import (AxisFrame, axis_frame, axis_frames, axis_size,  # noqa: F401
                       extend_axis_env, innermost_axis_name)
from .ir import HostShapedArray, memory_space_rule, host_avals_seen as _host_avals_seen  # noqa: F401

# --------------------------------------------------------------------------- avals


def get_aval(x) -> ShapedArray:
    """Abstract value of a concrete value or Tracer (a type a library registered in
    `value_tables.pytype_aval_mappings`: its registered rule's)."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if value_tables.extended() and (rule := value_tables.aval_rule(type(x))) is not None:
        return rule(x)
    return _builtin_aval(x)


def _builtin_aval(x) -> ShapedArray:
    if dtypes.is_weak_scalar(x):
        return ShapedArray((), dtypes.python_scalar_dtype(x), True)
    if isinstance(x, (bool, np.bool_)):
        return ShapedArray((), dtypes.bool_)
    if isinstance(x, (np.ndarray, np.generic)) or (
            hasattr(x, "__array__") and hasattr(x, "shape") and hasattr(x, "dtype")):
        # NumPy values, and foreign arrays (e.g. jax.Array) through __array__
        dt = np.dtype(x.dtype) if not isinstance(x.dtype, np.dtype) else x.dtype
        if dt not in dtypes._SHORT:
            raise TypeError(f"unsupported dtype {x.dtype}")
        return ShapedArray(tuple(x.shape), dtypes.canonicalize(dt))
    raise TypeError(f"{type(x).__name__} is not a valid array value")


def _str_aval(x):
    raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type")


class UnhashableStagedError(JAXTypeError):
    """A staged value hashed (a dict key, a set element, a `jit` static argument): as
    JAX's tracers, it has no hash. An eager transformation whose function hashes an
    argument it does not differentiate stages it again with that argument static, as
    JAX runs it on the concrete value."""


class WeakConst:
    """A 0-d NumPy constant that keeps JAX's weak_type flag (from a Python scalar):
    it stages as a weak-typed literal."""
    __slots__ = ("val", "aval")

    def __init__(self, val):
        self.val = np.asarray(val)
        self.aval = ShapedArray((), self.val.dtype, True)

    def __array__(self, dtype=None, copy=None):
        return self.val if dtype is None else self.val.astype(dtype)

    def __repr__(self):
        return f"WeakConst({self.val})"


def is_array_value(x) -> bool:
    return (isinstance(x, (Tracer, np.ndarray, np.generic, bool, int, float, complex))
            or isinstance(getattr(x, "aval", None), ShapedArray))

# ---------------------------------------------------------------------- primitives

# The rule kinds a primitive may carry, and the pass each one serves.
RULE_KINDS = ("impl", "abstract_eval", "jvp", "transpose", "partial_eval", "batch", "dce",
              "lowering", "source")
_RULE_WHAT = {"jvp": "differentiation", "transpose": "reverse-mode differentiation",
              "partial_eval": "linearization", "batch": "vmap", "dce": "dead-code elimination",
              "lowering": "compilation", "impl": "evaluation with NumPy",
              "abstract_eval": "shape inference", "source": "printing as source"}


class Primitive:
    """An IR operation and every rule that gives it meaning, set in the one block
    that creates it (see docs/architecture.md):

    - `impl(*numpy_values, **params)`: the NumPy reference;
    - `abstract_eval(*avals, **params)`: output aval(s);
    - `jvp(primals, tangents, **params)`, `transpose(cts, *args, **params)`,
      `partial_eval(eqn, unknowns)`, `batch(args, dims, **params)`, `dce(eqn, used)`;
    - `lowering(ctx, *operands, **params)`: StableHLO (`ctx.lower_jaxpr` for bodies);
    - `source(gen, eqn)`: printed Python (default: `lax.<name>(...)`).

    Flags: `linear` (has a transpose), `nondiff` (integer-valued: zero tangent),
    `effectful` (a side effect, e.g. a host callback: never removed as dead code,
    never merged with an equal equation; or a function of the params saying so),
    `always_batch` (its batch rule runs even when no operand is mapped),
    `transposed_at_zero` (transposed even with only zero cotangents in: True, or
    `f(params, at_zero)` deciding from its bodies' equations),
    `higher_order` (jvp/transpose/partial_eval/batch/dce rules receive the running
    pass `tx` first: `tx.jvp_jaxpr`, `tx.batch_jaxpr`, ...), and `unsupported`
    (rule kind -> why it is deliberately missing)."""

    call_primitive = False   # JAX's flags: `call` / `closed_call` (a `call_jaxpr` param)
    map_primitive = False

    def __init__(self, name: str, multiple_results: bool = False, higher_order: bool = False,
                 register: bool = True):
        self.name = name
        self.multiple_results = multiple_results
        self.higher_order = higher_order
        for kind in RULE_KINDS:
            setattr(self, kind, None)
        self.linear = self.nondiff = self.always_batch = self.effectful = False
        self.transposed_at_zero = False
        # may take a Ref operand (`AbstractRef`): the state primitives, and control
        # flow, whose bodies close over refs until `transforms/discharge.py` runs
        self.takes_refs = higher_order
        self.unsupported: dict[str, str] = {}
        if register:  # astjax's own primitives; users' (astjax.extend) stay out
            primitives[name] = self

    def bind(self, *args, **params):
        builders = _state.builders   # (staging, the common case: `bind` inlined)
        if builders and not _state.compile_time_eval and not _state.user_traces \
                and not _state.op_by_op:
            if operand_hook[0] is not None and len(args) > 1:   # (inside a shard_map body)
                args = operand_hook[0](self, args)
            return builders[-1].add_eqn(self, args, params)
        return bind(self, *args, **params)

    def __repr__(self):
        return self.name
    get_bind_params = staticmethod(dict)   # JAX's re-bind params (jaxprs stay in params)

    def bind_with_trace(self, trace, args, *avals_params):
        """JAX's `bind_with_trace(trace, args, avals, params)`: bind with `trace` current
        (a library's `Trace`, or what `take_current_trace` gave for astjax's own)."""
        with current_user_trace(trace if hasattr(trace, "process_primitive") else None):
            return self.bind(*args, **avals_params[-1])

    # decorator forms, as JAX's `def_impl` / `def_abstract_eval`
    def def_impl(self, f):
        self.impl = f
        return f

    def def_abstract_eval(self, f):
        self.abstract_eval = f
        return f


def rule(p: Primitive, kind: str, loc=None, error=None, tx=None, optional=False):
    """`p`'s rule of `kind` -- bound to the running pass `tx` when `p` is higher-order --
    or (unless `optional`, which gives None) the one located "not supported" error."""
    r = getattr(p, kind)
    if r is not None:
        return functools.partial(r, tx) if p.higher_order and tx is not None else r
    if optional:
        return None
    missing = getattr(p, "missing_rule_error", None)   # extension primitives: JAX's error
    if missing is not None and kind in ("jvp", "transpose", "batch", "abstract_eval"):
        raise missing(kind)
    reason = p.unsupported.get(kind)
    raise (error or NotImplementedInAstjaxError)(f"{_RULE_WHAT[kind]} of `{p.name}` is not supported"
                + (f": {reason}" if reason else ""), loc=loc or UNKNOWN)


primitives: dict[str, Primitive] = {}


def has_effects(eqn) -> bool:
    """Does `eqn` have a side effect: an effectful primitive, or one inside a nested
    jaxpr of its params (a debug print inside a loop body)?"""
    effectful = eqn.primitive.effectful   # or a function of the params (ffi_call's
    if effectful is True or (callable(effectful) and effectful(eqn.params)):  # has_side_effect)
        return True
    if not eqn.params:   # (most equations: no nested jaxpr to look into)
        return False
    return any(_jaxpr_has_effects(j.jaxpr if isinstance(j, ClosedJaxpr) else j)
               for j in sub_jaxprs(eqn.params))


_effects_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _jaxpr_has_effects(jaxpr) -> bool:
    """Memoized per jaxpr (passes ask again for every enclosing equation)."""
    r = _effects_cache.get(jaxpr)
    if r is None:
        r = _effects_cache[jaxpr] = any(has_effects(e) for e in jaxpr.eqns)
    return r


def new_primitive(name: str, multiple_results: bool = False,
                  higher_order: bool = False) -> Primitive:
    return Primitive(name, multiple_results, higher_order)


# ------------------------------------------------------- symbolic zeros (for AD rules)

float0 = np.dtype([("float0", np.void, 0)])


class Zero:
    """A symbolic zero tangent or cotangent of abstract value `aval`."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval.str_short(True)})"


class UndefinedPrimal:
    """Marks a linear input of an equation being transposed."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval.str_short(True)})"


def is_undefined(x):
    return isinstance(x, UndefinedPrimal)


def differentiable(aval) -> bool:
    """Whether values of this aval have a (non-float0) tangent space."""
    return dtypes.is_inexact(aval.dtype)

# -------------------------------------------------------------------------- tracers


class Tracer:
    """A staged value: an IR variable of a live Builder, with its value when known
    at staging time (static partial evaluation, e.g. `jnp.array(x.shape).prod()`).
    Its operators, array methods and NumPy-protocol dispatch are installed by
    `astjax/numpy/array_methods.py` (the numpy layer), as JAX's are."""
    __slots__ = ("builder", "_var", "known", "__weakref__")   # (`var`: the array method)
    __array_priority__ = 1000

    def __init__(self, builder: "Builder", var: Var, known=None):
        if isinstance(var, AbstractValue):   # JAX's `Tracer(trace, aval)`: a library's
            var = Var(var)                   # subclass (haiku's DotTracer) of its Trace
        self.builder, self._var, self.known = builder, var, known

    aval = property(lambda self: self._var.aval)
    shape = property(lambda self: self._var.aval.shape)
    dtype = property(lambda self: self._var.aval.dtype)
    ndim = property(lambda self: self._var.aval.ndim)
    size = property(lambda self: self._var.aval.size)
    weak_type = property(lambda self: self._var.aval.weak_type)
    _trace = property(lambda self: self.builder)   # (JAX's `x._trace(.main)`: Trace or Builder)

    def __repr__(self):
        return f"JitTracer({self.aval})"  # JAX's repr of a value staged under jit

    def _concrete(self, what: str, error=ConcretizationError):
        if self.known is not None and not (refuse_known[0] and refuse_known[0](self, what)):
            return self.known
        raise error(
            f"{what} needs a value known at staging time, but this "
            f"{self.aval.str_short(True)} value is computed when the function runs")

    def __bool__(self):
        return bool(self._concrete("a Python `bool()` (an `if`, `while`, `and`/`or`)",
                                   TracerBoolConversionError))

    def __int__(self):
        return int(self._concrete("`int()`", TracerIntegerConversionError))

    def __index__(self):
        return int(self._concrete("a Python index or shape", TracerIntegerConversionError))

    def __float__(self):
        return float(self._concrete("`float()`"))

    def __complex__(self):
        return complex(self._concrete("`complex()`"))

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(self._concrete("conversion to a NumPy array", TracerArrayConversionError))
        return v.astype(dtype) if dtype is not None else v

    def __hash__(self):
        # as JAX's tracers: hashing by identity would bake a staging-time id into the
        # program (`{x.sum(), x.sum()}` has 2 elements, `i in d` is always False)
        raise UnhashableStagedError(f"unhashable type: staged value {self!r}",
                           hint="a staged value cannot be a dict key or set element; use a "
                                "static (Python) value, or jnp.where / lax.switch on it")

    def item(self):
        return self._concrete("`.item()`").item()

    def tolist(self):
        return self._concrete("`.tolist()`").tolist()


class Array(abc.ABC):
    """The public array type (`astjax.Array`, `jnp.ndarray`), abstract as `jax.Array`:
    staged values (`Tracer`) and device arrays (`codegen.runtime.Array`, registered by
    `astjax/__init__.py`) are instances, so `isinstance(x, jnp.ndarray)` means the same
    staged and eager (R5)."""
    __slots__ = ()


Array.register(Tracer)


class RefTracer(Tracer):
    """A staged mutable array reference (a variable of aval `AbstractRef`): indexing
    reads and writes through the state primitives (`r[...]`, `r[0] = v`, `r[i] += v`),
    as JAX's tracers of a Ref do; it is not an array (`r + 1` is a TypeError). The
    methods dispatch to the aval's, which `astjax/primitives/state.py` defines."""
    __slots__ = ("freed",)

    def __init__(self, builder, var, known=None):
        super().__init__(builder, var, None)
        self.freed = False

    def __repr__(self):
        return f"JitTracer<{self.aval}>"

    def __getitem__(self, idx):
        return self.aval.ops.get(self, idx)

    def __setitem__(self, idx, value):
        self.aval.ops.set(self, idx, value)

    def __len__(self):
        if not self.shape:
            raise JAXTypeError("len() of unsized object")
        return self.shape[0]

    def get(self, idx=()):
        """The value at `idx` (`r[idx]`)."""
        return self.aval.ops.get(self, idx)

    def set(self, value, idx=()):
        """Store `value` at `idx` (`r[idx] = value`)."""
        self.aval.ops.set(self, idx, value)

    def swap(self, value, idx=()):
        """Store `value` at `idx`, returning what was there."""
        return self.aval.ops.swap(self, idx, value)

    def addupdate(self, value, idx=()):
        """Add `value` into the reference at `idx` (`r[idx] += value`)."""
        self.aval.ops.addupdate(self, idx, value)

    # not an array: the numpy layer's operators and methods (installed on Tracer)
    # must not apply to a reference
    __iter__ = None
    __array__ = None
    __array_ufunc__ = None
    __array_function__ = None


def tracer_for(builder, var, known=None) -> Tracer:
    """The Tracer for `var`: a RefTracer for a reference."""
    return RefTracer(builder, var) if type(var.aval) is AbstractRef else Tracer(builder, var, known)

_KNOWN_LIMIT = 4096  # elements: larger values are not computed at staging time
refuse_known: list = [None]   # (tracer, what) -> True: not its value (ad_base._stage_known)


class Builder:
    """Collects equations for one jaxpr. Values from enclosing builders (closures of
    a branch or loop body) are captured as extra constvars; the caller passes them
    as explicit operands."""

    def __init__(self):
        self.eqns: list[Eqn] = []
        self.invars: list[Var] = []
        self.consts: dict[int, tuple[Var, Any]] = {}   # id(value) -> (var, value)
        self.const_ids: dict[Var, int] = {}            # var -> id(value)
        self.captures: dict[int, tuple[Var, Tracer]] = {}
        self.producer: dict[Var, Eqn] = {}
        self.alive = True
        # functions staged while it is open (`cond.staged_once`), dropped when it closes:
        # their consts may be this builder's tracers
        self.staged: dict = {}
        # what was open when it was made (`name_stack.staged_info`)
        self.ns_base = len(name_stack.current.stack)
        self.si_base = len(name_stack.current.infos)

    main = property(lambda self: self)   # (JAX's `trace.main`: what a trace is named by)

    def new_arg(self, aval: ShapedArray, hint=None) -> Tracer:
        v = Var(aval, hint)
        self.invars.append(v)
        return tracer_for(self, v)

    def atom(self, x) -> Atom:
        if isinstance(x, Tracer):
            if x.builder is self or isinstance(x._var, Literal):
                return x._var
            if not x.builder.alive:
                raise EscapedTracerError(
                    "a staged value from a function that has finished staging was used")
            entry = self.captures.get(id(x))
            if entry is None:
                entry = self.captures[id(x)] = (Var(x.aval, x._var.hint), x)
            return entry[0]
        if isinstance(x, WeakConst):
            return Literal(x.val[()], x.aval)
        if isinstance(x, (bool, int, float, complex, np.generic)) or (
                isinstance(x, np.ndarray) and x.ndim == 0):
            aval = get_aval(x)
            return Literal(np.asarray(x, aval.dtype)[()], aval)
        entry = self.consts.get(id(x))
        if entry is None:
            aval = get_aval(x)
            if aval.size == 1 and aval.ndim == 0 and isinstance(x, np.ndarray):
                return Literal(x[()], aval)
            entry = self.consts[id(x)] = (Var(aval), x)
            self.const_ids[entry[0]] = id(x)
        return entry[0]

    def const_tracer(self, value: np.ndarray) -> "Tracer":
        """A staged constant: a literal (scalars) or a constvar, with its value known."""
        aval = get_aval(value)
        # a WeakConst's value is its array (the object itself is truthy and no number)
        known = (value.val if type(value) is WeakConst else value) if aval.size <= _KNOWN_LIMIT \
            else None
        if aval.ndim == 0:
            return Tracer(self, Literal(np.asarray(value)[()], aval), known)
        return Tracer(self, self.atom(value), known)

    def known_value(self, x):
        if isinstance(x, Tracer):
            return x.known
        if isinstance(x, WeakConst):
            return x.val
        if isinstance(x, (np.ndarray, np.generic, bool, int, float, complex)):
            return np.asarray(x, get_aval(x).dtype)
        return None  # device arrays are not pulled to the host while staging

    def add_eqn(self, prim: Primitive, args, params) -> Any:
        # once per staged operation: the common cases written out (issue 14)
        in_atoms = [a._var if type(a) is Tracer and a.builder is self else self.atom(a)
                    for a in args]
        in_avals = [a.aval for a in in_atoms]
        if not prim.takes_refs:
            for i, a in enumerate(in_avals):
                if type(a) is AbstractRef:
                    raise JAXTypeError(f"{prim.name} requires ndarray or scalar arguments, got "
                                       f"a mutable array reference of type {a} at position {i}",
                                       hint="read the reference's value first: r[...]")
        out = (prim.abstract_eval or rule(prim, "abstract_eval"))(*in_avals, **params)
        if _host_avals_seen[0]:   # (values in pinned host memory: ir.memory_space_rule)
            out = memory_space_rule(prim, in_avals, out)
        infos = name_stack.current.infos
        info = infos[-1] if infos else user_location(2)
        if infos or len(name_stack.current.stack) > self.ns_base:
            info = name_stack.staged_info(info, self.ns_base, len(infos) > self.si_base,
                                          not infos and info is not UNKNOWN)
        producer = self.producer
        folded = True   # (an operand known only at run time: nothing to fold)
        for a in args:
            if type(a) is Tracer and a.known is None:
                folded = False
                break
        if not prim.multiple_results:
            v = Var(out)
            eqn = Eqn(prim, in_atoms, [v], params, info)
            self.eqns.append(eqn)
            producer[v] = eqn
            known = self._fold(prim, args, params, [out])[0] if folded else None
            return Tracer(self, v, known) if type(out) is not AbstractRef else RefTracer(self, v)
        outvars = [Var(a) for a in out]
        eqn = Eqn(prim, in_atoms, outvars, params, info)
        self.eqns.append(eqn)
        for v in outvars:
            producer[v] = eqn
        known = self._fold(prim, args, params, out) if folded else [None] * len(outvars)
        return [tracer_for(self, v, k) for v, k in zip(outvars, known)]

    def _fold(self, prim, args, params, out_avals):
        none = [None] * len(out_avals)
        for a in args:   # the usual case first: an operand known only at run time
            if type(a) is Tracer and a.known is None:
                return none
        if prim.impl is None or any(type(a.size) is not int or a.size > _KNOWN_LIMIT  # (symbolic)
                                    or type(a) is AbstractRef
                                    for a in out_avals):
            return none
        vals = [self.known_value(a) for a in args]
        if any(v is None for v in vals):
            return none
        try:
            res = prim.impl(*vals, **params)
        except Exception:  # folding is an optimisation; staging stays correct
            return none
        res = res if prim.multiple_results else [res]
        return [np.asarray(r, a.dtype) for r, a in zip(res, out_avals)]

    def set_name(self, tracer: Tracer, name: str):
        if tracer.builder is self and isinstance(tracer._var, Var) and tracer._var.hint is None:
            tracer._var.hint = name
            eqn = self.producer.get(tracer._var)
            if eqn is not None and eqn.source_info.name is None:
                eqn.source_info = eqn.source_info.replace(name=name)

    def build(self, outs) -> tuple[Jaxpr, list]:
        """Returns the jaxpr and its consts; captured outer Tracers are among the
        consts (constvars come first, in the order consts then captures)."""
        outvars = [self.atom(o) for o in outs]
        constvars = [v for v, _ in self.consts.values()] + [v for v, _ in self.captures.values()]
        consts = [c for _, c in self.consts.values()] + [t for _, t in self.captures.values()]
        return Jaxpr(constvars, self.invars, outvars, self.eqns), consts


def current_builder() -> Builder | None:
    return _state.builders[-1] if _state.builders else None


@contextmanager
def new_builder():
    """A fresh staging `Builder` on the stack, with the collector paused."""
    b = Builder()
    tid = _push_builder(b)   # (counted: jit's fast paths read `trace_state.staging_threads`)
    traces = _state.user_traces
    pushed = bool(traces)   # (a library's Trace: the body is staged by astjax, as JAX's)
    if pushed:
        traces.append(None)
    try:
        with collector_paused():
            yield b
    finally:
        _pop_builder(tid)
        if pushed:
            traces.pop()
        b.alive = False
        b.staged = {}


def current_user_trace(trace) -> util.pushed:
    """`trace` (a library's `Trace`: its `process_primitive(primitive, tracers,
    params)` receives every `bind`) current inside; None: astjax's own again."""
    return util.pushed(_state.user_traces, trace)


def current_source_info() -> SourceInfo:
    infos = name_stack.current.infos
    return infos[-1] if infos else user_location(3)


# Hook set in one spot, by codegen/runtime.py (core never imports codegen): runs one
# primitive on concrete values -- the eager path of `bind` outside any staging.
eager_backend: Callable | None = None

# Hook set in one spot, by callbacks_api.py: a NumPy value made a device Array on the
# default device (committed), as JAX's host callbacks (`debug.print`, `pure_callback`)
# receive their operands.
host_array: Callable | None = None


def bind(prim: Primitive, /, *args, **params):
    """Apply primitive `prim` to `args`: record it in the current staging builder, or evaluate eagerly."""
    traces = _state.user_traces
    if traces and traces[-1] is not None:   # a library's interpreter (set_current_trace)
        return traces[-1].process_primitive(prim, list(args), params)
    b = current_builder()
    if b is not None:
        if _state.compile_time_eval:   # jax.ensure_compile_time_eval, jax.core.eval_context
            if not any(isinstance(a, Tracer) for a in args):
                return eager_backend(prim, args, params)
            if _state.eval_only == len(_state.builders):
                raise EscapedTracerError(f"a staged value was used by {prim.name} inside "
                                         f"jax.core.eval_context, which evaluates now")
        elif _state.op_by_op:
            vals = op_by_op_values(prim, args, params)
            if vals is not None:
                return eager_backend(prim, vals, params)
        if operand_hook[0] is not None and len(args) > 1:
            args = operand_hook[0](prim, args)
        return b.add_eqn(prim, args, params)
    for a in args:
        if isinstance(a, Tracer):
            raise EscapedTracerError(
                "a staged value was used after the function that produced it finished staging")
        if type(getattr(a, "aval", None)) is AbstractRef:   # an eager `Ref`
            if not prim.takes_refs:
                raise JAXTypeError(f"{prim.name} requires ndarray or scalar arguments, got a "
                                   f"mutable array reference of type {a.aval}",
                                   hint="read the reference's value first: r[...]")
            return eager_ref_apply(prim, args, params)
    if prim.higher_order and eager_key_check is not None:
        eager_key_check(prim, args, params)
    return eager_backend(prim, args, params)


# Hook set in one spot, by astjax/op_by_op.py: while an eager transformation stages its
# function (`_state.op_by_op`), `bind`'s operands as values when the operation runs now
# (none of them staged), else None.
op_by_op_values: Callable | None = None


# Hook set in one spot, by primitives/vma.py while a shard_map body is staged:
# `hook(prim, args) -> args` of a primitive with several operands, the less varying
# ones cast to vary as the others (JAX's implicit `pvary`, as equations).
operand_hook: list = [None]

# Hook set in one spot, by transforms/discharge.py: runs a primitive whose operands
# include eager `Ref`s (a `lax.scan` body closing over one, called outside `jit`):
# discharged, run eagerly, the references' final values stored back.
eager_ref_apply: Callable | None = None

# Hook set in one spot, by random/key_reuse.py: a higher-order primitive bound outside
# staging (an eager `lax.scan` whose body closes over a key, or takes one as an operand)
# checked as JAX checks each eager primitive while `jax_debug_key_reuse` is on.
eager_key_check: Callable | None = None


def stage(fn: Callable, in_avals, hints=None) -> ClosedJaxpr:
    """Stage `fn(*tracers) -> list of values` into a closed jaxpr. Captured outer
    Tracers appear among the consts (see `Builder.build`)."""
    with new_builder() as b:
        args = [b.new_arg(a, h) for a, h in zip(in_avals, hints or [None] * len(in_avals))]
        outs = fn(*args)
        jaxpr, consts = b.build(outs)
    return ClosedJaxpr(jaxpr, consts)


def stage_open(fn: Callable, in_avals, hints=None) -> tuple[Jaxpr, list]:
    cj = stage(fn, in_avals, hints)
    return cj.jaxpr, cj.consts

# ------------------------------------------- staging Python callables, closures


# Set by astjax.staging: a user function -> what runs on Tracers (source-converted).
function_converter: Callable | None = None


class RawFunction:
    """A library function that stages as it is (never source-converted)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def raw(fn) -> RawFunction:
    """Mark `fn` to be staged as it is, never converted."""
    return RawFunction(fn)


def stage_callable(fun, in_tree, in_avals, hints=None):
    """Stage the Python callable `fun` on Tracers: its arguments are the pytree
    `in_tree` with leaves of `in_avals`; user functions are converted first (through
    `function_converter`). -> (Jaxpr, consts, out_tree); the consts are the values
    the function captured (outer Tracers or constants), to be passed as operands."""
    if isinstance(fun, RawFunction):
        target = fun.fn
    else:
        target = function_converter(fun) if function_converter is not None else fun
    out_tree = [None]

    def body(*tracers):
        args = tree_util.tree_unflatten(in_tree, tracers)
        out = target(*args)
        leaves, out_tree[0] = tree_util.flatten_for_staging(out)
        return leaves

    jaxpr, consts = stage_open(body, in_avals, hints)
    return jaxpr, consts, out_tree[0]


def closure_convert(jaxpr: Jaxpr) -> ClosedJaxpr:
    """The one closure conversion: constvars become leading invars."""
    return ClosedJaxpr(Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns), [])


def split_consts(cj: ClosedJaxpr):
    """-> (ClosedJaxpr without consts taking them as leading invars, consts)."""
    if not cj.consts:
        return cj, []
    return closure_convert(cj.jaxpr), list(cj.consts)


def join_consts(jaxprs_consts):
    """Branches with their own consts -> branches that all take every const as
    leading operands (JAX's common-consts form). Returns (closed jaxprs, consts)."""
    all_consts = []
    for _, consts in jaxprs_consts:
        all_consts.extend(consts)
    out = []
    offset = 0
    for jaxpr, consts in jaxprs_consts:
        before = [Var(get_aval(c)) for c in all_consts[:offset]]
        after = [Var(get_aval(c)) for c in all_consts[offset + len(consts):]]
        invars = before + jaxpr.constvars + after + jaxpr.invars
        out.append(ClosedJaxpr(Jaxpr([], invars, jaxpr.outvars, jaxpr.eqns), []))
        offset += len(consts)
    return out, all_consts

# ---------------------------------------------------------------------- evaluation


def eval_reference(jaxpr: Jaxpr, consts, *args, interpret_eqn=None, literal=None):
    """Evaluate `jaxpr`; by default with the NumPy reference rules (impl). `literal`
    (a Literal -> its value) reads literals; by default their `val`."""
    env: dict[Var, Any] = {}
    def read(a):
        if isinstance(a, Literal):
            return a.val if literal is None else literal(a)
        return env[a]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        if interpret_eqn is None:
            outs = rule(eqn.primitive, "impl", eqn.source_info)(*ins, **eqn.params)
        else:
            outs = interpret_eqn(eqn, ins)
        outs = outs if eqn.primitive.multiple_results else [outs]
        for v, x in zip(eqn.outvars, outs):
            env[v] = x
    return [read(a) for a in jaxpr.outvars]


def eval_closed(cj: ClosedJaxpr, *args):
    return eval_reference(cj.jaxpr, cj.consts, *args)


def inline_jaxpr(jaxpr: Jaxpr, consts, args):
    """Re-stage `jaxpr` into the current builder (used by transforms)."""
    return eval_reference(jaxpr, consts, *args, interpret_eqn=_rebind)


def eval_jaxpr(jaxpr: Jaxpr, consts, *args, propagate_source_info=True):
    """JAX's `jax.core.eval_jaxpr`: `jaxpr` applied to `args` by binding its equations
    (so it stages again under a transformation); `eval_reference` is the NumPy one.
    A weak-typed literal is bound as the Python scalar it stands for, so results keep
    JAX's weak types (`eval_jaxpr` of `x * 2` at `1.0` is a weak float32)."""
    return eval_reference(jaxpr, consts, *args, literal=_weak_literal, interpret_eqn=(
        _rebind if propagate_source_info else lambda e, ins: bind(e.primitive, *ins, **e.params)))


def _weak_literal(lit: Literal):
    """A weak-typed scalar literal's Python scalar (JAX's literals hold typed Python
    scalars); any other literal's value."""
    aval = lit.aval
    if getattr(aval, "weak_type", False) and aval.shape == ():
        py = {"i": int, "u": int, "f": float, "c": complex}.get(np.dtype(aval.dtype).kind)
        if py is not None and get_aval(py(lit.val)) == aval:
            return py(lit.val)
    return lit.val


def _rebind(eqn, ins):
    eqn.primitive in KEY_TYPE_READERS and type_keys_as(eqn.invars, ins)   # (typed keys)
    with source_info_context(eqn.source_info):
        return bind(eqn.primitive, *ins, **eqn.params)


# astjax's own entries of the table libraries extend (`jax.core.pytype_aval_mappings`)
value_tables.install_builtin(
    {**{t: _builtin_aval for t in (np.ndarray, bool, int, float, complex,
                                   *(np.dtype(d).type for d in dtypes._SHORT))},
     Tracer: get_aval, str: _str_aval})
