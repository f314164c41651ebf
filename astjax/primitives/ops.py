"""Every primitive family's public wrapper functions in one namespace: what
`astjax.lax` re-exports, and what a rule body reaches for when it needs another
family's operation (`base.lax_ops()`, imported inside the function: this module comes
after every family).
"""
from __future__ import annotations

import builtins as _builtins
from collections.abc import Sequence as _Sequence
import operator as _operator

import numpy as _np

from .. import core as _core, dtypes as _dtypes, tree_util as _tree_util
from ..shape_poly import canonical_dim as _canonical_dim, shape_entries as _shape_entries
from ..traceback_util import entry_point as _entry_point
from ..errors import (ArgumentIndexError as _ArgumentIndexError, AstjaxError as _AstjaxError,
                      ArgumentTypeError as _ArgumentTypeError, ShapeError as _ShapeError,
                      ArgumentValueError as _ArgumentValueError,
                      NotImplementedInAstjaxError as _NotImplementedInAstjaxError,
                      caller_location as _caller_location, check_callable as _check_callable,
                      check_signature as _check_signature)

# The elementwise family (astjax/primitives/{comparisons,arithmetic,elementwise}.py: one
# block per primitive, its rules and this wrapper). `not`/`and`/`or`/`xor` are Python
# keywords: their wrappers are `bitwise_not`/`bitwise_and`/`bitwise_or`/`bitwise_xor`.
from .elementwise import (  # noqa: F401
    RoundingMethod, abs, acos, acosh, add, asin, asinh, atan, atan2, atanh,
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clz, complex, conj, cos,
    cosh, digamma, div, eq, erf, erf_inv, erfc, exp, exp2, expm1, floor, ge, gt, imag,
    is_finite, le, lgamma, log, log1p, logistic, lt, max, min, mul, ne, neg,
    nextafter, polygamma, population_count, pow, real, reciprocal, rem, round, rsqrt,
    shift_left, shift_right_arithmetic, shift_right_logical, sign, sin, sinh, sqrt, square,
    sub, tan, tanh)
from .cumulative import (argmax, argmin, cumlogsumexp, cummax, cummin,  # noqa: F401
                                    cumprod, cumsum)
from .reductions import Precision, dot, dot_general  # noqa: F401
from . import reductions as _reductions
from .selection import clamp, select, select_n  # noqa: F401
from . import slicing as _slicing
from .slicing import _index_scalar, index_in_dim, slice, slice_in_dim  # noqa: F401
from .sort import sort, sort_key_val  # noqa: F401
from .top_k import approx_max_k, approx_min_k, top_k  # noqa: F401
from .structural import (bitcast_convert_type,  # noqa: F401
                         copy as copy_p, full_like, reshape, squeeze)
from .concat_pad import concatenate, pad as _pad, rev  # noqa: F401
from . import structural as _structural, arithmetic as _arithmetic

# Control flow (cond, switch, while_loop, fori_loop, scan, map) lives in its own module;
# the wrappers below check the user's functions first (see `_checked`).
from . import cond as _cond_mod, scan as _scan_mod, while_loop as _while_mod
from .gather import (GatherDimensionNumbers, GatherScatterMode,  # noqa: F401
                                gather)
from .scatter import (ScatterDimensionNumbers, scatter, scatter_add,  # noqa: F401
                                 scatter_apply, scatter_max, scatter_min, scatter_mul,
                                 scatter_sub)
from .custom_derivatives import stop_gradient_p  # noqa: F401
from . import custom_derivatives as _custom_derivatives
from . import convolution as _convolution
from .convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers,  # noqa: F401
                          conv_general_shape_tuple, conv_transpose,
                          conv_transpose_shape_tuple, conv_with_general_padding,
                          padtype_to_pads)
from .windowed import reduce_window_shape_tuple  # noqa: F401
from .window_computations import reduce_window  # noqa: F401
from .fft import FftType, fft  # noqa: F401
from .special import (betainc, bessel_i0e, bessel_i1e, igamma, igamma_grad_a,  # noqa: F401
                      igammac, zeta)
from .collectives import (all_gather, all_to_all, axis_index,  # noqa: F401
                                     axis_size, pmax, pmean, pmin, ppermute, pshuffle,
                                     psum, pswapaxes)
from .collectives_typed import pcast  # noqa: F401
from .collectives_scatter import psum_scatter  # noqa: F401
from . import spmd as _spmd
from .collectives_p2p import pbroadcast, precv, psend, ragged_all_to_all  # noqa: F401
from .ffi_call import after_all, create_token  # noqa: F401

from .bits import mulhi, reduce_precision, reduce_xor  # noqa: F401
from .barriers import dce_sink, optimization_barrier  # noqa: F401
from .rng_bits import RandomAlgorithm, rng_bit_generator, rng_uniform  # noqa: F401
from .composite import composite  # noqa: F401



# ---- argument checks of the shape-taking wrappers (JAX's classes: a bad shape or
# permutation is a TypeError, an axis or padding out of range a ValueError)

def _ints(values, what, nonneg=False):
    """`values` as a tuple of Python ints: a located TypeError for a non-integer (a
    float is never truncated) or, with `nonneg`, a negative entry."""
    try:
        out = tuple(_canonical_dim(v) for v in values)   # (symbolic dimensions kept)
    except TypeError:
        raise _ShapeError(f"{what} must be a sequence of integers, got {values!r:.60}",
                          hint="pass Python ints (or x.shape entries), not floats") from None
    if nonneg and any(v < 0 for v in out):
        raise _ShapeError(f"{what} must have every element be nonnegative, got {out}",
                          hint="dimensions are sizes: 0 or more")
    return out


def _ndim(x):
    return _core.get_aval(x).ndim


def transpose(operand, permutation):
    """JAX's `lax.transpose`; the permutation must list every axis once."""
    perm = _ints(permutation, "transpose permutation")
    if sorted(perm) != list(range(_ndim(operand))):
        raise _ShapeError(f"transpose permutation isn't a permutation of operand dimensions, "
                          f"got permutation {perm} for operand of rank {_ndim(operand)}",
                          hint="list each axis 0..ndim-1 exactly once")
    return _structural.transpose(operand, perm)


def expand_dims(array, dimensions):
    """JAX's `lax.expand_dims`; each new axis must fit the result's rank."""
    dims = _ints(dimensions, "expand_dims dimensions")
    n = _ndim(array) + len(dims)
    bad = [d for d in dims if not -n <= d < n]
    if bad:
        raise _ArgumentValueError(f"expand_dims: axis {bad[0]} is out of bounds for a result "
                                  f"of rank {n}", hint=f"use axes in [-{n}, {n - 1}]")
    return _structural.expand_dims(array, dims)


def integer_pow(x, y):
    """JAX's `lax.integer_pow`: `y` must be a Python integer."""
    if not isinstance(y, (_builtins.int, _np.integer)) or isinstance(y, _builtins.bool):
        raise _ArgumentTypeError(f"lax.integer_pow needs an integer exponent, got {y!r:.40}",
                                 hint="use lax.pow for a non-integer exponent")
    return _arithmetic.integer_pow(x, y)


def iota(dtype, size):
    """JAX's `lax.iota`: `size` must be a nonnegative integer."""
    (size,) = _ints((size,), "iota size", nonneg=True)
    return _structural.iota(dtype, size)


def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    """JAX's `lax.broadcast_in_dim`, its shape and dimensions checked first."""
    shape = _ints(shape, "broadcast_in_dim shape", nonneg=True)
    if any(isinstance(d, (bool, _np.bool_)) for d in broadcast_dimensions):
        raise _ShapeError("broadcast_in_dim broadcast_dimensions must have every element be an "
                          f"integer type, got {tuple(broadcast_dimensions)}",
                          hint="give the result axes as ints, not bools")
    dims = _ints(broadcast_dimensions, "broadcast_in_dim broadcast_dimensions")
    if len(dims) != _ndim(operand) or any(not 0 <= d < len(shape) for d in dims):
        raise _ShapeError(f"broadcast_in_dim broadcast_dimensions {dims} do not fit an operand "
                          f"of rank {_ndim(operand)} and a result of rank {len(shape)}",
                          hint="give one result axis per operand axis, in increasing order")
    return _structural.broadcast_in_dim(operand, shape, dims, out_sharding)


def broadcast(operand, sizes, *, out_sharding=None):
    """JAX's `lax.broadcast`: new leading axes of `sizes` (nonnegative integers);
    `out_sharding` lays the result out, as `broadcast_in_dim`'s."""
    sizes = _ints(sizes, "broadcast sizes", nonneg=True)
    if out_sharding is None:
        return _structural.broadcast(operand, sizes)
    shape = _core.get_aval(operand).shape
    return broadcast_in_dim(operand, tuple(sizes) + tuple(shape),
                            tuple(range(len(sizes), len(sizes) + len(shape))),
                            out_sharding=out_sharding)


def full(shape, fill_value, dtype=None):
    """JAX's `lax.full`: `shape` must be nonnegative integers."""
    return _structural.full(_ints(_shape_entries(shape), "full shape", nonneg=True), fill_value, dtype)


def pad(operand, padding_value, padding_config):
    """JAX's `lax.pad`: a 0-d padding value, one hashable (low, high, interior) triple per
    axis (a list or array entry is JAX's TypeError), interior >= 0."""
    config = tuple(padding_config)
    for c in config:
        try:
            hash(c)
        except TypeError:
            raise _ArgumentTypeError(f"padding_config entries must be hashable (low, high, "
                                     f"interior) tuples, got {c!r:.60}",
                                     hint="write each entry as a tuple: [(1, 1, 0)]") from None
    if isinstance(padding_value, (list, tuple)):
        raise _ArgumentTypeError(f"padding_value must be an array or a scalar, got a "
                                 f"{type(padding_value).__name__}",
                                 hint="pass a scalar of the operand's dtype")
    if _ndim(padding_value) != 0:
        raise _ArgumentValueError(f"padding_value must be a scalar; got shape "
                                  f"{_core.get_aval(padding_value).shape}",
                                  hint="pass a 0-d value of the operand's dtype")
    if len(config) != _ndim(operand) or any(len(c) != 3 for c in config):
        raise _ArgumentValueError(f"length of padding_config must equal the number of axes of "
                                  f"operand, got padding_config {config} for operand of rank "
                                  f"{_ndim(operand)}", hint="give one (low, high, interior) "
                                                            "triple per axis")
    config = [tuple(_ints(c, "pad padding_config entry")) for c in config]
    if any(c[2] < 0 for c in config):
        raise _ArgumentValueError(f"interior padding in padding_config must be nonnegative, "
                                  f"got padding_config {config}",
                                  hint="low/high may be negative (they crop); interior may not")
    return _pad(operand, padding_value, config)


def stop_gradient(x):
    """JAX's `lax.stop_gradient`: every leaf of `x` must be an array or a scalar."""
    for leaf in _tree_util.tree_leaves(x):
        try:
            _core.get_aval(leaf)
        except TypeError:
            raise _ArgumentTypeError(f"stop_gradient: argument of type {type(leaf).__name__} "
                                     f"({leaf!r:.40}) is not an array",
                                     hint="pass arrays, scalars, or pytrees of them") from None
    return _custom_derivatives.stop_gradient(x)


def convert_element_type(operand, new_dtype, weak_type=False):
    """JAX's `lax.convert_element_type`: `new_dtype` must name a dtype (or be an
    extended dtype declared with rules: `primitives/edtypes.py`)."""
    try:
        if not _dtypes.is_user_extended(new_dtype):
            _np.dtype(new_dtype)
    except TypeError:
        raise _ArgumentTypeError(f"convert_element_type: data type {new_dtype!r:.40} not "
                                 "understood", hint="use a dtype such as jnp.float32 or "
                                                    "'int32'") from None
    return _structural.convert_element_type(operand, new_dtype, weak_type)


# ---- dynamic slices: JAX's `allow_negative_indices` (default True) reads a negative
# start index from the end of its axis, before the primitive clamps it into range.
# astjax's own callers use `primitives/slicing.py`'s functions, whose indices are in range.

def _negative_starts(operand, starts, allow):
    """`starts` with each negative start index counted from the end of its axis where
    `allow` (a bool, or one per index): a concrete int is shifted here, a traced one by
    `select(i < 0, i + d, i)`. A concrete negative index that is not allowed is JAX's
    ValueError; an unsigned one is never negative."""
    shape = _core.get_aval(operand).shape
    starts = list(starts)
    if len(starts) != len(shape):
        return starts   # the primitive's own located error
    flags = [allow] * len(starts) if isinstance(allow, bool) else list(allow)
    out = []
    for i, d, ok in zip(starts, shape, flags):
        if isinstance(i, (int, _np.integer)) and not isinstance(i, bool):
            if i < 0 and not ok:
                raise ValueError(f"Index {i} is out of bounds for dimension {d} if "
                                 "allow_negative_indices=False")
            out.append(type(i)(i + d) if i < 0 and isinstance(d, int) else i)
            continue
        try:
            dt = _np.dtype(_core.get_aval(i).dtype)
        except Exception:   # not an index: the primitive's own located error
            dt = None
        if not ok or dt is None or dt.kind not in "i":
            out.append(i)
            continue
        d = (_np.asarray(d, dt)[()] if isinstance(d, int)
             else _structural.convert_element_type(d.dimension_as_value(), dt))
        # `i + d` promotes as JAX's operator does: a weak index is made strong first
        negative = lt(i, _np.zeros((), dt))
        strong = (_structural.convert_element_type(i, dt)
                  if _core.get_aval(i).weak_type else i)
        out.append(select(negative, add(strong, d), i))
    return out


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """JAX's `lax.dynamic_slice`: a `slice_sizes` window at (traced) `start_indices`,
    negative ones read from the end, then clamped into range."""
    starts = _negative_starts(operand, start_indices, allow_negative_indices)
    return _slicing.dynamic_slice(operand, starts, slice_sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """JAX's `lax.dynamic_update_slice`: `update` written at (traced) `start_indices`,
    negative ones read from the end, then clamped into range."""
    starts = _negative_starts(operand, start_indices, allow_negative_indices)
    return _slicing.dynamic_update_slice(operand, update, starts)


def _in_dim_starts(operand, index, axis, what):
    """The start indices of an `*_in_dim` dynamic slice (`index` at `axis`, 0 elsewhere)
    and the axis made non-negative."""
    nd = _ndim(operand)
    axis = _slicing._in_dim_axis(axis, nd, what)
    starts = [0] * nd
    starts[axis] = index
    return starts, axis


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """JAX's `lax.dynamic_slice_in_dim`: a dynamic slice along one axis."""
    starts, axis = _in_dim_starts(operand, start_index, axis, "dynamic_slice_in_dim")
    sizes = list(_core.get_aval(operand).shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """JAX's `lax.dynamic_index_in_dim`: operand[..., index, ...] at a (traced) index;
    `axis` must be an axis of `operand`."""
    nd = _ndim(operand)
    (axis,) = _ints((axis,), "dynamic_index_in_dim axis")
    if not -nd <= axis < nd:
        raise _ArgumentIndexError(f"dynamic_index_in_dim: axis {axis} is out of bounds for an "
                                  f"operand of rank {nd}",
                                  hint=f"use an axis in [-{nd}, {nd - 1}]")
    r = dynamic_slice_in_dim(operand, index, 1, axis,
                             allow_negative_indices=allow_negative_indices)
    return r if keepdims else _structural.squeeze(r, (axis % _ndim(operand),))


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """JAX's `lax.dynamic_update_slice_in_dim`: a dynamic update along one axis."""
    starts, _ = _in_dim_starts(operand, start_index, axis, "dynamic_update_slice_in_dim")
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """JAX's `lax.dynamic_update_index_in_dim`: `update` written at operand[..., index, ...]."""
    starts, axis = _in_dim_starts(operand, index, axis, "dynamic_update_index_in_dim")
    if _ndim(update) == _ndim(operand) - 1:
        update = _structural.expand_dims(update, (axis,))
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=allow_negative_indices)


def _reduce_axes(name, operand, axes):
    """Reduction axes: integers in range, each once (JAX: ValueError otherwise)."""
    nd = _ndim(operand)
    axes = _ints(axes, f"{name} axes")
    if any(not -nd <= a < nd for a in axes):
        raise _ArgumentValueError(f"{name}: reduction axes {axes} contain out-of-bounds "
                                  f"indices for an operand of rank {nd}",
                                  hint=f"use axes in [-{nd}, {nd - 1}]")
    norm = tuple(a % nd for a in axes) if nd else axes
    if len(set(norm)) != len(norm):
        raise _ArgumentValueError(f"{name}: duplicate value in axes {axes}",
                                  hint="name each axis once")
    return norm


def _reducer(name):
    fn = getattr(_reductions, name)

    def reduce(operand, axes):
        return fn(operand, _reduce_axes(name, operand, axes))
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"JAX's `lax.{name}`: reduce over `axes` (checked: in range, distinct)."
    return reduce


reduce_prod, reduce_max, reduce_min, reduce_and, reduce_or = (
    _reducer(n) for n in ("reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or"))


def _laid_out(x, out_sharding, what):
    """x laid out as `out_sharding` (None: as it is) -- JAX gives the operation's result
    that type; here a reshard right after it, the same layout and values."""
    if out_sharding is None:
        return x
    s = _structural.out_layout(out_sharding, what)   # (its spec padded to x's rank)
    return _spmd.reshard(x, type(s)(s.mesh, s.spec.update(
        partitions=s.spec._normalized(_ndim(x)))))


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """JAX's `lax.conv_general_dilated`: XLA's convolution (`primitives/convolution.py`),
    laid out as `out_sharding` says when given."""
    out = _convolution.conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
        feature_group_count, batch_group_count, precision, preferred_element_type)
    return _laid_out(out, out_sharding, "dot_general")   # (the name JAX's errors give)


def with_sharding_constraint(x, shardings):
    """`lax.with_sharding_constraint`: lay each leaf of `x` out as its sharding says
    (`shardings` is one sharding for every leaf or a pytree prefix of `x`; a bare
    PartitionSpec names axes of the current mesh; a `jax.experimental.layout.Format`
    gives its sharding). A spec with unreduced / reduced axes raises JAX 0.10.2's
    ValueError (use `jax.reshard`). astjax keeps every array row-major: a Format asking
    for another memory layout is a located NotImplementedInAstjaxError."""
    return _spmd.with_sharding_constraint(
        x, _tree_util.tree_map(_format_sharding, shardings, is_leaf=_spmd.is_layout))


def _format_sharding(s, what="with_sharding_constraint"):
    """A `Format`'s sharding (anything else as it is); a non-row-major layout is a
    located NotImplementedInAstjaxError (`what` names the caller)."""
    if _spmd.is_layout(s) or not (hasattr(s, "layout") and hasattr(s, "sharding")):
        return s
    order = getattr(s.layout, "major_to_minor", None)
    if s.layout is not None and tuple(order or ()) != tuple(range(len(order or ()))):
        raise _NotImplementedInAstjaxError(
            f"{what}: the layout {s.layout} is not row-major; astjax "
            "keeps every array in the default (row-major) layout",
            hint="pass the Format's sharding alone", loc=_caller_location())
    return s.sharding


def reduce_sum(operand, axes, *, out_sharding=None):
    """JAX's `lax.reduce_sum`: the sum over `axes` (checked: in range, distinct), laid out
    as `out_sharding` says when given."""
    out = _reductions.reduce_sum(operand, _reduce_axes("reduce_sum", operand, axes))
    return _laid_out(out, out_sharding, "reduce_sum")


def broadcasted_iota(dtype, shape, dimension, *, out_sharding=None):
    """JAX's `lax.broadcasted_iota`: the index along `dimension`, of `shape`, laid out as
    `out_sharding` says when given."""
    return _laid_out(_structural.broadcasted_iota(dtype, shape, dimension), out_sharding,
                     "broadcasted_iota")


def _checked(what, fun, nargs):
    """`fun` must be callable and take `nargs` positional arguments: otherwise a located
    TypeError naming the user's function (not the converted one it would fail in)."""
    _check_callable(fun, what)
    _check_signature(fun, (None,) * nargs, None, what)


@_entry_point
def cond(pred, true_fun, false_fun, *operands, **kwargs):
    """JAX's `lax.cond` (see `primitives/cond.py`, also the legacy `operand=`
    keyword), with its branches checked first. The legacy form `cond(pred,
    true_operand, true_fun, false_operand, false_fun)` (blackjax's NUTS) is JAX's too."""
    if not callable(true_fun) and callable(false_fun) and len(operands) == 2 \
            and callable(operands[1]) and not kwargs:
        x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
        _checked("lax.cond", f_true, 1)
        _checked("lax.cond", f_false, 1)
        return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
    n = len(operands) + ("operand" in kwargs)
    for f in (true_fun, false_fun):
        _checked("lax.cond", f, n)
    if pred is None or isinstance(pred, _Sequence):   # JAX's TypeErrors, before staging
        raise _ArgumentTypeError(f"lax.cond: the predicate must be a scalar, got {pred!r:.40} "
                                 f"of type {type(pred).__name__}",
                                 hint="pass a boolean (or number) scalar: lax.cond(x > 0, ...)")
    return _cond_mod.cond(pred, true_fun, false_fun, *operands, **kwargs)


_NO_OPERAND = object()


@_entry_point
def switch(index, branches, *operands, operand=_NO_OPERAND):
    """JAX's `lax.switch`, with its branches checked first (and the legacy keyword
    `operand=x`: one positional operand `x`)."""
    if operand is not _NO_OPERAND:
        if operands:
            raise _ArgumentTypeError(
                "if 'operand' keyword is passed then no positional operands can be passed, "
                f"got operand={operand!r} and positional operands {operands}",
                hint="pass the operands by position only")
        operands = (operand,)
    try:
        branches = list(branches)
    except TypeError as e:   # (JAX's TypeError: it iterates them to check each)
        raise _ArgumentTypeError(f"lax.switch: branches must be a sequence of callables, got "
                                 f"{branches!r:.60}: {e}",
                                 hint="pass a list of functions, even for one branch: "
                                      "switch(i, [f], x)") from None
    if not branches:
        raise _ArgumentValueError("lax.switch needs at least one branch, got an empty sequence",
                                  hint="pass a list of functions: switch(i, [f0, f1], x)")
    for f in branches:
        _checked("lax.switch", f, len(operands))
    dt = getattr(index, "dtype", None)
    if (isinstance(index, (_builtins.float, _builtins.complex))
            or (dt is not None and _np.dtype(dt).kind in "fc")):
        raise _ArgumentTypeError(f"lax.switch: the index must be an integer, got {index!r:.40}",
                                 hint="convert it, e.g. lax.switch(i.astype(int), ...), or "
                                      "use lax.cond for a boolean")
    return _cond_mod.switch(index, branches, *operands)


@_entry_point
def while_loop(cond_fun, body_fun, init_val):
    """JAX's `lax.while_loop`, with `cond_fun(c)` and `body_fun(c)` checked first."""
    _checked("lax.while_loop cond_fun", cond_fun, 1)
    _checked("lax.while_loop body_fun", body_fun, 1)
    return _while_mod.while_loop(cond_fun, body_fun, init_val)


@_entry_point
def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """JAX's `lax.fori_loop`, with `body_fun(i, c)` checked first."""
    _checked("lax.fori_loop body_fun", body_fun, 2)
    return _while_mod.fori_loop(lower, upper, body_fun, init_val, unroll=unroll)


@_entry_point
def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """JAX's `lax.scan`, with `f(carry, x)` checked first."""
    _checked("lax.scan", f, 2)
    length = _scan_length(length)
    _check_scan_length(xs, length)
    return _scan_mod.scan(f, init, xs, length, reverse, unroll, _split_transpose)


def _scan_length(length):
    """`length` as a Python int, as JAX's `int(length)` (2.5 is 2 trips); a staged value
    is a concretization error, a value `int` rejects its located error, a negative
    length a ValueError (JAX's fails in the compiler)."""
    if length is None or type(length) is int and length >= 0:
        return length
    try:
        length = int(length)   # (a staged value: its own concretization error)
    except _AstjaxError:
        raise
    except (TypeError, ValueError) as e:
        cls = _ArgumentTypeError if isinstance(e, TypeError) else _ArgumentValueError
        raise cls(f"lax.scan: length must be an integer, got {length!r:.40}: {e}",
                  hint="pass the number of iterations as an int") from None
    if length < 0:
        raise _ArgumentValueError(f"lax.scan: length must be nonnegative, got {length}",
                                  hint="pass the number of iterations (0 or more)")
    return length


def _check_scan_length(xs, length):
    """Every leaf of `xs` has a leading axis, all of one size, which agrees with
    `length`; one of the two is given (JAX: ValueError otherwise)."""
    sizes = []
    for x in _tree_util.tree_leaves(xs):
        try:
            shape = _core.get_aval(x).shape
        except TypeError:
            return  # not an array: the scan itself reports it
        if not shape:
            raise _ArgumentValueError(f"lax.scan got a value with no leading axis to scan "
                                      f"over: {x!r:.40}",
                                      hint="every leaf of xs is stacked along axis 0; pass "
                                           "length=n to scan without xs")
        sizes.append(shape[0])
    if len(set(sizes)) > 1:
        raise _ArgumentValueError(f"lax.scan got values with different leading axis sizes: "
                                  f"{', '.join(str(n) for n in sizes)}",
                                  hint="every leaf of xs needs the same length along axis 0")
    if length is not None and sizes and int(length) != sizes[0]:
        raise _ArgumentValueError(f"lax.scan got length={length}, which disagrees with the "
                                  f"leading axis size {sizes[0]} of xs",
                                  hint="drop length, or make it the size of xs")
    if length is None and not sizes:
        raise _ArgumentValueError("lax.scan got no values to scan over and no length",
                                  hint="pass xs, or length=n for a loop without inputs")


def broadcast_shapes(*shapes):
    """`lax.broadcast_shapes`: the NumPy broadcast of integer shapes (a tuple), or
    JAX's ValueError naming the shapes when they do not broadcast."""
    if not shapes:
        raise _ArgumentValueError("broadcast_shapes needs at least one shape")
    shapes = [tuple(int(d) for d in s) for s in shapes]
    rank = _builtins.max(len(s) for s in shapes)
    out = []
    for dims in zip(*[(1,) * (rank - len(s)) + s for s in shapes]):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise _ArgumentValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


@_entry_point
def map(f, xs, *, batch_size=None):  # noqa: A001 -- JAX's name
    """JAX's `lax.map`, with `f(x)` checked first."""
    _checked("lax.map", f, 1)
    return _scan_mod.map(f, xs, batch_size=batch_size)


__all__ = [n for n in dir() if not n.startswith("_") and n != "annotations"]
