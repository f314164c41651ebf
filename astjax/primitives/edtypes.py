"""User extended dtypes: arrays of an `ExtendedDType` declared with rules (JAX's
`jax._src.dtypes.ExtendedDType` with `_rules`; flax's fp8 `fm32`, whose derivatives
accumulate by `max`), the `to_edtype` / `from_edtype` primitives between them and their
representation, and how reverse mode adds and zeroes their cotangents.

An array of such a dtype is an `EArray` (JAX's `jax._src.earray.EArray`): its logical
shape and dtype over its *data*, an array of the representation type the dtype's
`_rules.physical_element_aval(dt)` gives, of shape `(*shape, *element shape)`. Every
pass carries the data; the variables holding it have an `EDataAval`, which passes read
as the physical type (equal to the plain `ShapedArray`) and which names the extended
dtype, so that

- reverse mode adds two cotangents of it by the dtype's rule, `_rules.add(dt, x, y)`,
  and makes its zeros by `_rules.zero(dt)` broadcast (`base.add_tangents`,
  `base.zeros_like_aval`): flax's amax histories combine by `max` across a `scan`;
- the jaxpr printer shows the variables as JAX types them (`fp8_meta32[3]`).

`lax.convert_element_type` (and `astype`) between the dtype and its representation
binds the primitives, after the rules' `convert_to` / `convert_from` checks:

    b:fp8_meta32[3] = to_edtype[edtype=fp8_meta32] a
    c:f32[3] = from_edtype[dtype=float32] b

Both are the identity on the data (no computation is emitted), linear (each transposes
to the other), and batch with the batch axis first (the element axes stay last).
At a staging boundary (`jit`, `vmap`, `grad`, loop carries, custom derivatives) an
EArray is expanded to its data (`tree_util.register_staging_leaf`), the dtype kept as
static structure, and rebuilt over the staged data.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, tree_util
from ..core import ShapedArray
from ..errors import ArgumentValueError, NotImplementedInAstjaxError
from ..ir import Var, register_physical
from .base import deffront, deflinear, is_zero, register, shown_params

__all__ = ["EArray", "earray", "EDataAval", "ExtendedAval", "to_edtype_p", "from_edtype_p",
           "convert_extended", "element_aval", "edtype_add", "edtype_zeros", "squeeze_axes"]


def _name(dt) -> str:
    """A dtype as JAX's messages name it (`int32`, `fp8_meta32`)."""
    return getattr(dt, "name", None) or str(dt)


def element_aval(edtype) -> ShapedArray:
    """The representation of one element of `edtype` (JAX's `physical_element_aval`)."""
    duck = edtype._rules.physical_element_aval(edtype)
    return ShapedArray(tuple(duck.shape), np.dtype(duck.dtype))


def tangent_dtype(edtype):
    """The dtype of `edtype`'s tangents (`_rules.tangent_dtype`; float0, no tangent
    space, when the rules declare none)."""
    rule = getattr(edtype._rules, "tangent_dtype", None)
    return dtypes.float0 if rule is None else rule(edtype)


class ExtendedAval(ShapedArray):
    """The abstract value of an array of an extended dtype (`jax.typeof(e)`:
    `fp8_meta32[3]`; typed keys' `KeyAval` is one): its logical shape and dtype.
    Transformations carry its data, so it is only read, never staged."""
    __slots__ = ()

    def __init__(self, shape, dtype, weak_type=False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.weak_type = False

    def update(self, shape=None, dtype=None, weak_type=None):
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype)

    def to_tangent_aval(self):
        """The tangents' type: the rules' `tangent_dtype` over the same shape."""
        return ShapedArray(self.shape, tangent_dtype(self.dtype))

    to_ct_aval = at_least_vspace = to_tangent_aval

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        return f"{_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other):
        return type(other) is type(self) and (other.shape, other.dtype) == (self.shape,
                                                                            self.dtype)

    def __hash__(self):
        return hash((type(self), self.shape, self.dtype))

    def __repr__(self):
        return f"ShapedArray({self.str_short(True)})"

    __str__ = str_short


# `ShapedArray(shape, dt)` of a user extended dtype is its ExtendedAval (typed keys
# set their own KeyAval on their dtype's class)
dtypes.ExtendedDType.aval_type = ExtendedAval


@register_physical
class EDataAval(ShapedArray):
    """The aval of a variable holding the data of an array of user extended dtype
    `edtype`: read by every pass as the physical type (equal to the plain one, hashed
    alike); reverse mode reads `edtype` to add and zero cotangents by its rules, the
    printer to show the variable as JAX types it. `update` keeps the annotation while
    the dtype and the trailing element axes stay (structural ops, batching)."""
    __slots__ = ("edtype",)

    def __init__(self, shape, dtype, edtype):
        super().__init__(shape, dtype)
        self.edtype = edtype

    @classmethod
    def of(cls, aval: ShapedArray, edtype) -> "EDataAval":
        return cls(aval.shape, aval.dtype, edtype)

    def _element_ndim(self):
        return element_aval(self.edtype).ndim

    def update(self, shape=None, dtype=None, weak_type=None):
        plain = ShapedArray.update(self, shape, dtype, weak_type)
        k = self._element_ndim()
        if (plain.dtype == self.dtype and not plain.weak_type
                and plain.shape[len(plain.shape) - k:] == self.shape[len(self.shape) - k:]):
            return EDataAval.of(plain, self.edtype)
        return plain

    def to_tangent_aval(self):
        """The tangents' type: this type when the rules make the dtype its own tangent
        dtype (flax's `fm32`), else that dtype over the logical shape."""
        td = tangent_dtype(self.edtype)
        if td == self.edtype:
            return self
        return ShapedArray(self.shape[:len(self.shape) - self._element_ndim()], td)

    to_ct_aval = at_least_vspace = to_tangent_aval

    def zeros(self):
        """A zero cotangent of this type (`base.zeros_like_aval`): `edtype_zeros`."""
        return edtype_zeros(self)

    def add_values(self, a, b):
        """Two cotangents of this type added (`base.add_tangents`): `edtype_add`."""
        return edtype_add(self.edtype, a, b)

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        logical = self.shape[:len(self.shape) - self._element_ndim()]
        return f"{_name(self.edtype)}[{','.join(map(str, logical))}]"

    __hash__ = ShapedArray.__hash__


def _annotate(data, edtype):
    """Type the variable under staged `data` as `edtype`'s data, in place (a staging
    boundary's arguments and results, a broadcast zero); other values as they are."""
    if (isinstance(data, core.Tracer) and isinstance(data._var, Var)
            and not isinstance(data._var.aval, EDataAval)):
        data._var.aval = EDataAval.of(data._var.aval, edtype)
    return data


class EArray:
    """An array of a user extended dtype (JAX's `EArray`): its logical `shape` and
    `dtype` over its data (see the module docstring). It takes part in no arithmetic;
    `lax.convert_element_type` / `astype` to the representation dtype read it.
    `earray(data, dtype)` makes one from data."""
    __slots__ = ("_data", "_dtype")
    __array_priority__ = 100

    def __init__(self, aval, data):
        """JAX's signature: the logical `aval` (its dtype is what is kept), the data."""
        self._data = _annotate(data, aval.dtype)
        self._dtype = aval.dtype

    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: tuple(self._data.shape)[
        :len(self._data.shape) - element_aval(self._dtype).ndim])
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    weak_type = False
    aval = property(lambda self: ExtendedAval(self.shape, self._dtype))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, idx):
        """The elements at `idx` (the data indexed, its element axes whole)."""
        idx = idx if isinstance(idx, tuple) else (idx,)
        k = element_aval(self._dtype).ndim
        return earray(self._data[idx + (slice(None),) * k] if k else self._data[idx],
                      self._dtype)

    def reshape(self, *shape):
        """The elements in a new shape (C order)."""
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) \
            else shape
        return earray(self._data.reshape(shape + element_aval(self._dtype).shape),
                      self._dtype)

    def ravel(self):
        """The elements in one axis (C order)."""
        return self.reshape(self.size)

    flatten = ravel

    def squeeze(self, axis=None):
        """The elements without length-1 axes (all of them, or `axis`)."""
        return earray(self._data.squeeze(squeeze_axes(self.shape, axis)), self._dtype)

    def transpose(self, *axes):
        """The elements with their axes permuted (reversed without `axes`)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        nd = self.ndim
        perm = tuple(_logical_axis(a, nd) for a in axes) if axes else tuple(
            reversed(range(nd)))
        tail = tuple(range(nd, len(self._data.shape)))
        return earray(self._data.transpose(perm + tail), self._dtype)

    T = property(lambda self: self.transpose())

    def swapaxes(self, a, b):
        """The elements with axes `a` and `b` exchanged."""
        perm = list(range(self.ndim))
        a, b = _logical_axis(a, self.ndim), _logical_axis(b, self.ndim)
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def broadcast_to(self, shape):
        """The elements broadcast to `shape` (NumPy's rules; the element axes whole)."""
        from .structural import broadcast_in_dim
        shape, nd, k = tuple(shape), self.ndim, element_aval(self._dtype).shape
        if len(shape) < nd or any(d not in (1, s) for d, s in zip(self.shape,
                                                                  shape[len(shape) - nd:])):
            raise ArgumentValueError(f"cannot broadcast an array of shape {self.shape} to "
                                     f"shape {shape}")
        n = len(shape)
        dims = tuple(range(n - nd, n)) + tuple(range(n, n + len(k)))
        return earray(broadcast_in_dim(self._data, shape + k, dims), self._dtype)

    @property
    def at(self):
        """JAX's arrays of an extended dtype have no indexed updates (its
        NotImplementedError, eagerly and under `jit`)."""
        raise NotImplementedInAstjaxError(
            f"indexed updates (.at[]) of an array of extended dtype {_name(self._dtype)}",
            hint="JAX raises NotImplementedError here too: convert to the representation "
                 "dtype, update, and convert back (lax.convert_element_type)")

    def copy(self):
        """A copy (of the data)."""
        return earray(self._data.copy(), self._dtype)

    def astype(self, dtype):
        """`lax.convert_element_type(self, dtype)` (to the representation dtype)."""
        return convert_extended(self, dtype)

    def _no_values(self, *_):
        raise NotImplementedInAstjaxError(
            f"an array of extended dtype {_name(self._dtype)} has no values to compare, "
            "test or iterate (JAX's NotImplementedError)",
            hint="convert it to its representation dtype first (lax.convert_element_type)")

    __eq__ = __ne__ = __bool__ = __iter__ = _no_values

    def block_until_ready(self):
        if hasattr(self._data, "block_until_ready"):
            self._data.block_until_ready()
        return self

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"an array of extended dtype {_name(self._dtype)} cannot be "
                        "converted to a NumPy array; convert it to its representation "
                        "dtype first (lax.convert_element_type)")

    __hash__ = None   # arrays are unhashable

    def __repr__(self):
        if isinstance(self._data, core.Tracer):
            return f"Traced<{self.aval.str_short(True)}>"
        return "E" + repr(self._data)   # JAX's: the data's repr (`EArray([1., 2.], ...)`)

    __str__ = __repr__


def _logical_axis(a, nd):
    """Logical axis `a` of an array of rank `nd` in [0, nd) (an element axis is never
    reachable): JAX's AxisError otherwise."""
    if not -nd <= a < nd:
        raise ArgumentValueError(f"axis {a} is out of bounds for array of dimension {nd}")
    return a % nd


def squeeze_axes(shape, axis=None) -> tuple:
    """The logical axes `squeeze(axis)` drops from an array of an extended dtype of
    `shape` (typed keys' too): the length-1 ones, or `axis` (an int or a tuple)."""
    if axis is None:
        return tuple(i for i, d in enumerate(shape) if d == 1)
    return tuple(_logical_axis(a, len(shape)) for a in (
        axis if isinstance(axis, (tuple, list)) else (axis,)))


def _from_physical(edtype, data):
    """An EArray again over what a transformation computed for its data (the data, or
    its aval where a control-flow primitive rebuilds its operands' structure), or the
    shape struct of one (`eval_shape`: `ShapeDtypeStruct(shape, edtype)`)."""
    if not isinstance(data, (core.Tracer, ShapedArray)) and not hasattr(data, "__array__") \
            and all(hasattr(data, a) for a in ("shape", "dtype")):
        k = element_aval(edtype).ndim
        return type(data)(tuple(data.shape)[:len(data.shape) - k], edtype)
    return earray(data, edtype)


def earray(data, edtype) -> EArray:
    """The EArray of `edtype` over `data` (of the representation type)."""
    shape = tuple(getattr(data, "shape", ()))   # (a transformation's placeholder: none)
    return EArray(ExtendedAval(shape[:len(shape) - element_aval(edtype).ndim], edtype), data)


tree_util.register_staging_leaf(EArray, lambda e: (e._data, e._dtype), _from_physical)
core.Array.register(EArray)

# ------------------------------------------------------------------- to_edtype


def _allowed(rules, name, *args) -> bool:
    check = getattr(rules, name, None)
    return bool(check(*args)) if check is not None else bool(
        getattr(rules, "allow_conversion", False))


def _to_abstract_eval(x, *, edtype):
    if not _allowed(edtype._rules, "convert_to", x.dtype, edtype):
        raise ArgumentValueError(f"Cannot convert_element_type from {_name(x.dtype)} to "
                                 f"{_name(edtype)}")
    rep = element_aval(edtype)
    if x.dtype != rep.dtype:
        raise ArgumentValueError(
            "can only convert to extended dtype from its representation dtype, but tried "
            f"to convert from {_name(x.dtype)} to {_name(edtype)} which doesn't match the "
            f"representation type {_name(rep.dtype)}.")
    n = x.ndim - rep.ndim
    if n < 0 or tuple(x.shape[n:]) != rep.shape:
        raise ArgumentValueError(
            f"can only convert to extended dtype from an array of its representation type, "
            f"but the extended dtype {_name(edtype)} has a representation shape {rep.shape} "
            f"while the given representation array has shape {tuple(x.shape)}")
    return EDataAval(x.shape, x.dtype, edtype)


def _identity_impl(x, **params):
    return np.asarray(x)


def _identity_lowering(ctx, x, **params):
    return x


to_edtype_p = core.new_primitive("to_edtype")
register(to_edtype_p, impl=_identity_impl, abstract_eval=_to_abstract_eval,
         lowering=_identity_lowering)
deffront(to_edtype_p)

# ----------------------------------------------------------------- from_edtype


def _from_abstract_eval(x, *, dtype, edtype):
    if not _allowed(edtype._rules, "convert_from", edtype, dtype):
        raise ArgumentValueError(f"Cannot convert_element_type from {_name(edtype)} to "
                                 f"{_name(dtype)}")
    if element_aval(edtype).dtype != dtype:
        raise ArgumentValueError(
            "can only convert from extended dtype to its representation dtype, but tried "
            f"to convert from {_name(edtype)} to {_name(dtype)} which doesn't match the "
            f"representation type {_name(element_aval(edtype).dtype)}.")
    return ShapedArray(x.shape, dtype)


def _from_jvp(primals, tangents, *, dtype, edtype):
    """Linear; but a tangent that reached it through a structural operation (indexing,
    reshape, `where`, ...) is no longer typed as the dtype's data, and reverse mode would
    then add its cotangents by `+`, not by the dtype's `add` rule: refused (JAX 0.10.2
    fails on every such derivative too)."""
    (x,), (t,) = primals, tangents
    out = core.bind(from_edtype_p, x, dtype=dtype, edtype=edtype)
    if is_zero(t):
        return out, core.Zero(core.get_aval(out))
    if getattr(core.get_aval(t), "edtype", None) is None:
        raise NotImplementedInAstjaxError(
            f"differentiating through a structural operation (indexing, reshape, where, "
            f"concatenate, ...) on an array of extended dtype {_name(edtype)}",
            hint="JAX 0.10.2 fails on this derivative too; convert to the representation "
                 "dtype before the operation (lax.convert_element_type)")
    return out, core.bind(from_edtype_p, t, dtype=dtype, edtype=edtype)


# (`edtype` is kept as a parameter, unprinted as JAX's: passes that re-bind the equation
# -- vmap, jvp -- give its operand the plain physical type)
from_edtype_p = core.new_primitive("from_edtype")
register(from_edtype_p, impl=_identity_impl, abstract_eval=_from_abstract_eval,
         lowering=_identity_lowering, jvp=_from_jvp,
         transpose=lambda ct, x, *, dtype, edtype: [
             None if is_zero(ct) else core.bind(to_edtype_p, ct, edtype=edtype)])
from_edtype_p.pp_shown = shown_params(("edtype",))
deffront(from_edtype_p)

# each is linear, transposing to the other (the tangent dtype is the dtype itself, as
# flax's rules declare: `EDataAval.to_tangent_aval`)
deflinear(to_edtype_p, lambda ct, x, *, edtype: [
    None if is_zero(ct) else core.bind(from_edtype_p, ct, dtype=x.aval.dtype, edtype=edtype)])

# ------------------------------------------------------------ convert_element_type


def convert_extended(x, new_dtype, weak_type=False):
    """`lax.convert_element_type` where `x` or `new_dtype` is a user extended dtype:
    to it from its representation dtype, or back; `x` itself when already of it."""
    old = getattr(x, "dtype", None)
    if not isinstance(old, dtypes.ExtendedDType):
        old = core.get_aval(x).dtype
    if new_dtype == old:
        return x
    if weak_type:
        raise NotImplementedInAstjaxError(
            "convert_element_type(weak_type=True) to or from an extended dtype",
            hint="JAX raises NotImplementedError here too")
    if isinstance(new_dtype, dtypes.ExtendedDType) and isinstance(old, dtypes.ExtendedDType):
        raise ArgumentValueError(
            f"cannot directly convert between extended dtypes: from {_name(old)} to "
            f"{_name(new_dtype)}. Instead, convert to and from their representation dtypes",
            hint="convert to the representation dtype first, then to the other dtype")
    if isinstance(new_dtype, dtypes.ExtendedDType):
        return earray(core.bind(to_edtype_p, x, edtype=new_dtype), new_dtype)
    new_dtype = dtypes.canonicalize(np.dtype(new_dtype))
    if not isinstance(x._data, core.Tracer):   # concrete data: checked, then itself
        _from_abstract_eval(core.get_aval(x._data), dtype=new_dtype, edtype=old)
        return x._data
    return core.bind(from_edtype_p, x._data, dtype=new_dtype, edtype=old)

# ------------------------------------------------------------ reverse-mode sums


def edtype_add(edtype, a, b):
    """Two cotangents of `edtype`'s data (`a`, `b`) added by the dtype's rule (JAX's
    `add_jaxvals` of extended dtypes): the data of `_rules.add(dt, x, y)`."""
    out = edtype._rules.add(edtype, earray(a, edtype), earray(b, edtype))
    return _annotate(out._data if isinstance(out, EArray) else out, edtype)


def edtype_zeros(aval: EDataAval):
    """The zero cotangent of `aval` (JAX's `zeros_like_aval` of an extended dtype):
    the rules' scalar `zero(dt)` broadcast over the logical shape, as data."""
    from .structural import broadcast_in_dim
    edtype = aval.edtype
    z = edtype._rules.zero(edtype)
    data = z._data if isinstance(z, EArray) else z
    k = element_aval(edtype).ndim
    if tuple(core.get_aval(data).shape) != tuple(aval.shape):
        n = len(aval.shape)
        data = broadcast_in_dim(data, tuple(aval.shape), tuple(range(n - k, n)))
    return _annotate(data, edtype)
