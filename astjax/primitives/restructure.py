"""The shape primitives JAX keeps as objects of their own (`lax.split_p`, `stack_p`,
`unstack_p`, `tile_p`): cutting an array into pieces, joining arrays along a new
axis and back, and repeating an array along each axis. All four are linear:

- `split` (sizes, axis) -> pieces; transpose: `concatenate` of the cotangents;
- `stack` (axis) joins equal-shaped operands; transpose: `unstack`;
- `unstack` (axis) -> the slices along `axis`; transpose: `stack`;
- `tile` (reps); transpose: the cotangent reshaped to (r0, n0, r1, n1, ...) and summed
  over the repeat axes.

Lowerings are JAX's (slices, broadcast + concatenate, slice + reshape, reshape +
broadcast + reshape); batching moves the operation's axis past the mapped one. The
`lax` wrappers check their arguments with JAX's messages (ValueErrors).
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError
from ..pyast import lax_call, pyconst
from .base import bdim_at_front, instantiate, is_zero, lowering_from, register, tangent_aval
from .reductions import reduce_sum
from .slicing import slice_in_dim
from .concat_pad import concatenate
from .structural import broadcast_in_dim, reshape

__all__ = ["split_p", "stack_p", "unstack_p", "tile_p", "split", "stack", "unstack", "tile",
           "checked_axis"]


def _array(x):
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtypes.canonicalize(np.asarray(x).dtype))
    return x


def checked_axis(axis, ndim, what):
    """`axis` of an array of rank `ndim` as a nonnegative int, or JAX's error (`what`
    names the function)."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise ArgumentTypeError(f"{what}: axis must be an integer, got {axis!r:.40}") from None
    if not -ndim <= axis < ndim:
        raise ArgumentValueError(f"{what}: axis {axis} is out of bounds for array of "
                                 f"dimension {ndim}", hint=f"use an axis in [-{ndim}, {ndim - 1}]")
    return axis % ndim


def _linear_jvp(p):
    """The JVP of a linear primitive of one or more results: itself on the tangents."""
    def rule(primals, tangents, **params):
        out = bind(p, *primals, **params)
        outs = out if p.multiple_results else [out]
        if all(is_zero(t) for t in tangents):
            zeros = [core.Zero(tangent_aval(o)) for o in outs]
            return out, zeros if p.multiple_results else zeros[0]
        ts = [instantiate(t, core.get_aval(x)) for t, x in zip(tangents, primals)]
        return out, bind(p, *ts, **params)
    return rule


def _cotangents(cts):
    return [instantiate(c) for c in cts]

# ---------------------------------------------------------------------------- split


split_p = core.new_primitive("split", multiple_results=True)


def _split_ae(x, *, sizes, axis):
    return [ShapedArray(x.shape[:axis] + (s,) + x.shape[axis + 1:], x.dtype, x.weak_type)
            for s in sizes]


def _split_impl(x, *, sizes, axis):
    return list(np.split(np.asarray(x), np.cumsum(sizes)[:-1], axis=axis))


def _split_pieces(x, *, sizes, axis):
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    return [slice_in_dim(x, int(a), int(a) + s, axis=axis) for a, s in zip(starts, sizes)]


def _split_transpose(cts, x, *, sizes, axis):
    if all(is_zero(c) for c in cts):
        return [None]
    return [concatenate(_cotangents(cts), axis)]


def _split_batch(args, dims, *, sizes, axis):
    (x,), (d,) = args, dims
    outs = bind(split_p, x, sizes=sizes, axis=axis + 1 if axis >= d else axis)
    return outs, [d] * len(outs)


def _split_source(gen, eqn):   # (`lax.split(x, sizes, axis=...)`, not a generic bind)
    p = eqn.params
    return lax_call("split", gen, eqn, gen.value(tuple(p["sizes"])), axis=pyconst(p["axis"]))


register(split_p, impl=_split_impl, abstract_eval=_split_ae,
         lowering=lowering_from(_split_pieces, multiple_results=True),
         jvp=_linear_jvp(split_p), transpose=_split_transpose, batch=_split_batch,
         source=_split_source)


def split(operand, sizes, axis=0):
    """`lax.split`: consecutive pieces of `operand` along `axis`, of `sizes` (which
    must be nonnegative and sum to that axis's size); a list of arrays."""
    operand = _array(operand)
    shape = core.get_aval(operand).shape
    axis = checked_axis(axis, len(shape), "split")
    # (each kept as given, a NumPy int too: JAX's params print it so)
    sizes = tuple(s if isinstance(s, np.integer) else operator.index(s) for s in sizes)
    if any(s < 0 for s in sizes):
        raise ArgumentValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if sum(sizes) != shape[axis]:
        raise ArgumentValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} "
                                 f"of the operand shape {list(shape)}")
    return list(bind(split_p, operand, sizes=sizes, axis=axis))

# ---------------------------------------------------------------------------- stack


stack_p = core.new_primitive("stack")


def _stack_ae(*xs, axis):
    if len({x.dtype for x in xs}) != 1:
        raise DTypeError(f"stack requires arguments to have the same dtypes, got "
                         f"{', '.join(x.dtype.name for x in xs)}.")
    shape = list(xs[0].shape)
    shape.insert(axis, len(xs))
    return ShapedArray(shape, xs[0].dtype, all(x.weak_type for x in xs))


def _stack_parts(*xs, axis):
    shape = list(core.get_aval(xs[0]).shape)
    shape.insert(axis, 1)
    dims = tuple(i for i in range(len(shape)) if i != axis)
    return concatenate([broadcast_in_dim(x, tuple(shape), dims) for x in xs], axis)


def _stack_transpose(ct, *xs, axis):
    if is_zero(ct):
        return [None] * len(xs)
    return list(bind(unstack_p, ct, axis=axis))


def _stack_batch(args, dims, *, axis):
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    xs = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    return bind(stack_p, *xs, axis=axis + 1), 0


register(stack_p, impl=lambda *xs, axis: np.stack([np.asarray(x) for x in xs], axis),
         abstract_eval=_stack_ae, lowering=lowering_from(_stack_parts),
         jvp=_linear_jvp(stack_p), transpose=_stack_transpose, batch=_stack_batch)


def stack(operands, axis=0):
    """`lax.stack`: arrays of one shape joined along a new axis `axis`."""
    arrays = [_array(x) for x in operands]
    if not arrays:
        raise ArgumentValueError("stack expects at least one operand, got 0.")
    shapes = [core.get_aval(a).shape for a in arrays]
    if len({len(s) for s in shapes}) != 1:
        raise ArgumentValueError("Cannot stack arrays with different numbers of dimensions: "
                                 f"got {', '.join(map(str, shapes))}.")
    if len(set(shapes)) != 1:
        raise ArgumentValueError("All input arrays must have the same shape. Got "
                                 f"{', '.join(map(str, shapes))}.")
    return bind(stack_p, *arrays, axis=checked_axis(axis, len(shapes[0]) + 1, "stack"))

# -------------------------------------------------------------------------- unstack


unstack_p = core.new_primitive("unstack", multiple_results=True)


def _unstack_ae(x, *, axis):
    one = ShapedArray(x.shape[:axis] + x.shape[axis + 1:], x.dtype, x.weak_type)
    return [one] * x.shape[axis]


def _unstack_slices(x, *, axis):
    shape = core.get_aval(x).shape
    rest = shape[:axis] + shape[axis + 1:]
    return [reshape(slice_in_dim(x, i, i + 1, axis=axis), rest) for i in range(shape[axis])]


def _unstack_transpose(cts, x, *, axis):
    if all(is_zero(c) for c in cts):
        return [None]
    return [bind(stack_p, *_cotangents(cts), axis=axis)]


def _unstack_batch(args, dims, *, axis):
    (x,), (d,) = args, dims
    outs = bind(unstack_p, x, axis=axis if axis < d else axis + 1)
    return outs, [d - 1 if axis < d else d] * len(outs)


register(unstack_p, impl=lambda x, axis: list(np.moveaxis(np.asarray(x), axis, 0)),
         abstract_eval=_unstack_ae, lowering=lowering_from(_unstack_slices, True),
         jvp=_linear_jvp(unstack_p), transpose=_unstack_transpose, batch=_unstack_batch)


def unstack(x, axis=0):
    """`lax.unstack`: the slices of `x` along `axis`, as a tuple (rank > 0)."""
    x = _array(x)
    shape = core.get_aval(x).shape
    if not shape:
        raise ArgumentValueError("unstack requires arrays with rank > 0, however a scalar "
                                 f"array of shape {shape} was passed.")
    return tuple(bind(unstack_p, x, axis=checked_axis(axis, len(shape), "unstack")))

# ----------------------------------------------------------------------------- tile


tile_p = core.new_primitive("tile")


def _tile_ae(x, *, reps):
    if x.ndim != len(reps):
        raise ShapeError(f"reps length must be equal to the ndim of x, got "
                                 f"len(reps)={len(reps)} and x.ndim={x.ndim}.")
    return ShapedArray(tuple(r * n for r, n in zip(reps, x.shape)), x.dtype, x.weak_type)


def _tile_parts(x, *, reps):
    shape = core.get_aval(x).shape
    # broadcast to (r0, n0, r1, n1, ...) then merge each pair of axes
    wide = tuple(d for r, n in zip(reps, shape) for d in (r, n))
    out = broadcast_in_dim(x, wide, tuple(range(1, 2 * len(shape), 2)))
    return reshape(out, tuple(r * n for r, n in zip(reps, shape)))


def _tile_transpose(ct, x, *, reps):
    if is_zero(ct):
        return [None]
    shape = x.aval.shape
    wide = reshape(ct, tuple(d for r, n in zip(reps, shape) for d in (r, n)))
    return [reduce_sum(wide, tuple(range(0, 2 * len(shape), 2)))]


def _tile_batch(args, dims, *, reps):
    (x,), (d,) = args, dims
    return bind(tile_p, x, reps=reps[:d] + (1,) + reps[d:]), d


register(tile_p, impl=lambda x, reps: np.tile(np.asarray(x), reps), abstract_eval=_tile_ae,
         lowering=lowering_from(_tile_parts), jvp=_linear_jvp(tile_p),
         transpose=_tile_transpose, batch=_tile_batch)


def tile(operand, reps):
    """`lax.tile`: `operand` repeated `reps[i]` times along each axis `i` (one
    nonnegative count per axis)."""
    operand = _array(operand)
    reps = tuple(operator.index(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ArgumentValueError(f"tile: reps must be nonnegative, got {reps}")
    return bind(tile_p, operand, reps=reps)
