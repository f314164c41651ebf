"""`jax.experimental.hijax`: JAX's "high-level" types and primitives -- user types
(`HiType`, `MutableHiType`) that lower to ordinary arrays, and primitives on them
(`HiPrimitive`) defined by a lowering to ordinary operations (`to_lojax`).

astjax's transformations work on arrays only: a hi value stays a Python object on
every side of a staging, holding arrays or staged values.

- `HiPrimitive`: a primitive whose `bind` runs its `to_lojax` rule on the values it is
  given (the lowering JAX applies before compiling), so it works eagerly and inside
  `jit` / `grad` / `vmap` whenever `to_lojax` is written with array operations;
- a mutable type's values (`MutableHiType`, with quasi-dynamic data:
  `jax.experimental.cur_qdd`) passed to `jit` / `eval_shape` / `grad`, or closed over by a
  `jit`, `grad`, `vmap`, `jvp` / `vjp` / `linearize`, `custom_jvp` / `custom_vjp`,
  `checkpoint` or `lax` control-flow body, are staged on their arrays and their final
  states stored back, as JAX lowers them (`astjax.hi_values`, `astjax.hi_state`); a
  primitive one of whose operands carries a tangent (or is a hi value `grad`
  differentiates) runs its `jvp` rule first, as JAX's differentiation does, for what it
  raises;
- `HiType` / `MutableHiType` / `AvalQDD` / `AvalMutableQDD`, `aval_method`,
  `aval_property`: the bases and markers libraries build their types from;
- `register_hitype(cls, typeof_fn)`: records `typeof_fn` as `cls`'s abstract value
  (`typeof` here consults it);
- `control_flow_allowed_effects`: the set of effect types allowed inside control flow.

flax.nnx builds its "hijax Variable" from these (`nnx.var_defaults(hijax=True)`, its
`flax_hijax_variable` flag); nnx's default Variables are plain pytrees.
"""
from __future__ import annotations

from collections import namedtuple

from astjax import api as _api, hi_state as _hi, hi_values as _hi_values
from astjax import value_tables as _value_tables
from astjax.core import Zero  # noqa: F401
from astjax.extend.core import Primitive as _Primitive
from astjax.interpreters.ad import instantiate_zeros, is_undefined_primal  # noqa: F401
from astjax.ir import AbstractValue as _AbstractValue, ShapedArray
from astjax.compat._src.state.types import AbstractRef  # noqa: F401

__all__ = ["HiPrimitive", "HiType", "MutableHiType", "AbstractValue", "AvalQDD",
           "AvalMutableQDD", "ShapedArray", "aval_method", "aval_property",
           "register_hitype", "typeof", "control_flow_allowed_effects", "Zero",
           "instantiate_zeros", "is_undefined_primal", "AbstractRef"]

# Markers a hi type's class body uses: a method (`aval_method(f)`) or a property
# (`aval_property(fget)`) of the abstract value that staged values of the type expose.
aval_method = namedtuple("aval_method", ["fun"])
aval_property = namedtuple("aval_property", ["fget"])


class AbstractValue(_AbstractValue):
    """Base of abstract values that are not `ShapedArray`s (a `jax.core.AbstractValue`)."""
    is_high = False
    has_qdd = False

    def to_tangent_aval(self):
        return self

    def normalize(self):
        return self


class HiType(AbstractValue):
    """An immutable high-level type: subclasses define equality, `lo_ty()` (the array
    avals it lowers to) and `lower_val` / `raise_val` (value <-> arrays)."""
    is_high = True

    def lo_ty(self):
        raise TypeError(f"{type(self).__name__} defines no lowering (lo_ty)")


class MutableHiType(AbstractValue):
    """A mutable high-level type whose lowering depends on its current state
    (`lo_ty_qdd(state)`)."""
    is_high = True
    has_qdd = True
    is_writer = False

    def lo_ty_qdd(self, state):
        raise TypeError(f"{type(self).__name__} defines no lowering (lo_ty_qdd)")


class AvalQDD:
    """An abstract value together with its quasi-dynamic data (the state that decides
    how a mutable hi type lowers)."""
    is_high = True
    has_qdd = True

    def __init__(self, aval, qdd):
        self.aval, self.qdd = aval, qdd

    def lo_ty(self):
        return self.aval.lo_ty_qdd(self.qdd)

    def __repr__(self):
        return f"AvalQDD({self.aval}, {self.qdd})"


class AvalMutableQDD:
    """An abstract value and the mutable cell holding its quasi-dynamic data."""

    def __init__(self, aval, mutable_qdd):
        self.aval, self.mutable_qdd = aval, mutable_qdd


class HiPrimitive(_Primitive):
    """A primitive defined by its lowering to ordinary operations: subclasses define
    `abstract_eval` and `to_lojax(*args, **params)` (and `jvp` / `transpose` where
    JAX would differentiate it as a unit). `bind` applies `to_lojax`, so the
    operations it stages are differentiated, batched and compiled by their own rules."""

    def __init__(self, name):
        super().__init__(name)

    def to_lojax(self, *args, **params):
        raise TypeError(f"hi primitive {self.name} defines no to_lojax lowering")

    def bind(self, *args, **params):
        """Apply the lowering to `args` (eagerly or on staged values); the mutable hi
        values among them and its results are reported to watched stagings."""
        _hi.touch(args)
        _hi_values.check_jvp(self, args, params)   # (JAX's differentiation reaches it)
        out = self.to_lojax(*args, **params)
        _hi.made(out)
        return out

    def is_high(self, *avals, **params):
        return True

    def is_effectful(self, params):
        return False


def register_hitype(val_cls, typeof_fn) -> None:
    """Declare values of `val_cls` as a hi type whose abstract value is `typeof_fn(x)`:
    its entry in `jax.core.pytype_aval_mappings`, JAX's one type table."""
    _value_tables.pytype_aval_mappings[val_cls] = typeof_fn


def typeof(x):
    """The abstract value of `x`: a registered hi type's, else `astjax.typeof(x)`."""
    aval = _hi.hi_type(x)
    return _api.typeof(x) if aval is None else aval


class _EffectTypeSet:
    """A set of effect *types* (`add_type`, membership by instance or type)."""

    def __init__(self):
        self._types: set[type] = set()

    def add_type(self, effect_type):
        self._types.add(effect_type)

    def contains(self, eff):
        return any(isinstance(eff, t) for t in self._types)

    __contains__ = contains


control_flow_allowed_effects = _EffectTypeSet()
