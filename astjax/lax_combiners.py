"""Reductions and scans with a user-supplied combining function: `lax.reduce` and
`lax.associative_scan`; and `lax.map`, whose `batch_size` maps the user's function
`vmap`ped over batches.

`reduce` recognises JAX's monoids -- `lax.add` with 0, `lax.mul` with 1, `lax.max` /
`lax.min` with the dtype's lowest / highest value, `lax.bitwise_and` / `bitwise_or` /
`bitwise_xor` with their identities on integers and booleans, one operand, a concrete
scalar initial value -- and binds the matching `reduce_*` primitive. Any other
computation (several operands, pytrees, a non-identity initial value, a staged one)
is staged on scalars and bound as `reduce_p` (XLA's reduce with that body). Its
derivative is JAX's rule, through a custom JVP: the tangent of a balanced tree of the
computation -- neighbouring entries combined in order (an odd last entry waits a
round), applied entry by entry through `vmap`, the initial value combined in front
once -- which for an associative computation is the same function.

`associative_scan` is the parallel prefix scan (Blelloch): combine neighbouring
pairs, scan the half-length result recursively, then fill in the even positions.

`map(f, xs, batch_size=b)` is JAX's: a scan over the whole batches of `b` rows with
`vmap(f)` as its body, then `vmap(f)` once more on the remaining rows (so `f` is staged
twice when the batches do not divide the rows), the results concatenated.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from . import core, dtypes, tree_util
from .ad_api import jvp
from .batching_api import vmap
from .custom_api import custom_jvp
from .errors import (ArgumentTypeError, ArgumentValueError, DTypeError,
                     NotImplementedInAstjaxError)
from . import lax_extended as _ext
from .primitives import ops as lax
from .primitives import scan as _scan_mod
from .traceback_util import entry_point as _entry_point
from .primitives.base import max_value, min_value
from .primitives.general_reduce import reduce_p

__all__ = ["reduce", "associative_scan"]


def _concrete_scalar(x):
    """`x` as a NumPy scalar when it is a concrete rank-0 value, else None."""
    if isinstance(x, core.Tracer):
        return None
    try:
        aval = core.get_aval(x)
    except TypeError:
        return None
    return np.asarray(x) if aval.shape == () else None


def _monoid_reducer(computation, inits):
    """The `lax.reduce_*` function `computation` with initial value `inits[0]` is, or
    None (JAX's table: the function object itself and an exact identity)."""
    if len(inits) != 1:
        return None
    val = _concrete_scalar(inits[0])
    if val is None:
        return None
    dt = core.get_aval(inits[0]).dtype
    intlike = dt == dtypes.bool_ or dtypes.issubdtype(dt, np.integer)
    table = [(lax.add, lax.reduce_sum, 0, True), (lax.mul, lax.reduce_prod, 1, True),
             (lax.max, lax.reduce_max, max_identity(dt), True),
             (lax.min, lax.reduce_min, min_identity(dt), True),
             (lax.bitwise_or, lax.reduce_or, 0, intlike),
             (lax.bitwise_and, lax.reduce_and, np.array(-1).astype(dt), intlike),
             (lax.bitwise_xor, lax.reduce_xor, 0, intlike)]
    for fn, reducer, identity, ok in table:
        if computation is fn:
            return reducer if ok and np.equal(val, identity) else None
    return None


def max_identity(dt):
    """The identity of `max` for dtype `dt` (-inf, the lowest integer, False)."""
    return np.asarray(min_value(dt), dt)


def min_identity(dt):
    """The identity of `min` for dtype `dt` (+inf, the highest integer, True)."""
    return np.asarray(max_value(dt), dt)


def _is_weak(x):
    try:
        return core.get_aval(x).weak_type
    except TypeError:
        return False


def reduce(operands, init_values, computation, dimensions, out_sharding=None):
    """`lax.reduce`: reduce `operands` (an array or a pytree of arrays of one shape)
    over `dimensions` with `computation`, a function of two pytrees shaped like
    `init_values` (scalars) returning one; `init_values` must be its identity and
    `computation` associative. Returns a pytree like `init_values`."""
    flat_ops, op_tree = tree_util.tree_flatten(operands)
    flat_init, init_tree = tree_util.tree_flatten(init_values)
    if op_tree != init_tree:
        raise ArgumentValueError("Operands must have the same tree structure as init_values: "
                                 f"{op_tree} vs. {init_tree}")
    if len(flat_ops) != len(flat_init):
        raise ArgumentValueError("Must have same total number of operands as init_values: "
                                 f" {len(flat_ops)} vs. {len(flat_init)}")
    if not callable(computation):
        raise ArgumentTypeError(f"lax.reduce: computation must be callable, got "
                                f"{computation!r:.40}")
    dims = tuple(operator.index(d) for d in dimensions)
    reducer = _monoid_reducer(computation, flat_init)
    if reducer is not None:
        weak = all(_is_weak(x) for x in flat_ops + flat_init)
        out = reducer(flat_ops[0], dims)
        out = lax.convert_element_type(out, core.get_aval(out).dtype, weak_type=weak)
        return tree_util.tree_unflatten(op_tree, [out])
    outs = _xla_reduce(computation, init_tree, flat_ops, flat_init, dims)
    return tree_util.tree_unflatten(init_tree, outs)


def _constant(x, dtype):
    """A concrete initial value as a constant of `dtype` (weak if `x` is)."""
    value = np.asarray(x, dtype)[()]
    return core.WeakConst(value) if _is_weak(x) else value


def _xla_reduce(computation, init_tree, flat_ops, flat_init, dims):
    """The general reduction: `reduce_p` with the computation staged on scalars (XLA
    computes the value), differentiated by JAX's rule (the tree below)."""
    avals = _check_operands(flat_ops, flat_init, dims)
    inits = [lax.convert_element_type(i, a.dtype, weak_type=_is_weak(i))
             if isinstance(i, core.Tracer) else _constant(i, a.dtype)
             for i, a in zip(flat_init, avals)]
    n = len(avals)
    scalars = [core.ShapedArray((), a.dtype) for a in avals]
    example = tree_util.tree_unflatten(init_tree, [0] * n)
    pair_tree = tree_util.tree_structure((example, example))
    jaxpr, consts, out_tree = core.stage_callable(computation, pair_tree, scalars + scalars)
    if any(isinstance(c, core.Tracer) for c in consts):
        raise NotImplementedInAstjaxError(
            "lax.reduce: the computation closes over a staged value (as in JAX, reduction "
            "computations can't close over Tracers)", hint="pass it as an operand instead")
    if out_tree != init_tree:
        raise ArgumentTypeError(f"lax.reduce: computation returned {out_tree}, which is not "
                                f"the structure of init_values ({init_tree})")
    closed = core.ClosedJaxpr(jaxpr, list(consts))

    # concrete initial values stay constants (not arguments: vmap does not batch them)
    staged = [isinstance(i, core.Tracer) for i in inits]
    fixed = [None if s else i for s, i in zip(staged, inits)]

    def full(args):
        xs, more = list(args[:n]), iter(args[n:])
        return xs, [next(more) if f is None else f for f in fixed]

    def primal(*args):
        xs, ins = full(args)
        return tuple(core.bind(reduce_p, *xs, *ins, jaxpr=closed, dimensions=dims))
    run = custom_jvp(primal)

    def tree(*args):
        xs, ins = full(args)
        return tuple(_tree_reduce(computation, init_tree, xs, ins, dims))

    def run_jvp(primals, tangents):
        return run(*primals), jvp(tree, tuple(primals), tuple(tangents))[1]
    run.defjvp(run_jvp)
    return list(run(*flat_ops, *[i for s, i in zip(staged, inits) if s]))


def _check_operands(flat_ops, flat_init, dims):
    avals = [core.get_aval(x) for x in flat_ops]
    shape = avals[0].shape
    if any(a.shape != shape for a in avals):
        raise ArgumentValueError("reduce operands must all have the same shape, got "
                                 f"{[a.shape for a in avals]}")
    for a, i in zip(avals, flat_init):
        ia = core.get_aval(i)
        if ia.shape != ():
            raise ArgumentTypeError(f"reduce: init_values must be scalars, got shape {ia.shape}")
        if ia.dtype != a.dtype and not ia.weak_type:
            raise DTypeError(f"reduce: operand dtype {a.dtype} and init_value dtype {ia.dtype} "
                             "must match", hint="cast the initial value to the operand's dtype")
    if len(set(dims)) != len(dims) or any(not 0 <= d < len(shape) for d in dims):
        raise ArgumentValueError(f"reduce: dimensions {dims} must be distinct axes of the "
                                 f"operand shape {shape}")
    return avals


def _tree_reduce(computation, init_tree, flat_ops, flat_init, dims):
    """The general reduction as a balanced tree of `computation` calls (module doc):
    what `_xla_reduce` differentiates."""
    avals = _check_operands(flat_ops, flat_init, dims)
    shape = avals[0].shape
    rest = [d for d in range(len(shape)) if d not in dims]
    rest_shape = tuple(shape[d] for d in rest)
    n, m = math.prod(shape[d] for d in dims), math.prod(rest_shape)
    inits = [lax.convert_element_type(i, a.dtype) for i, a in zip(flat_init, avals)]
    xs = [lax.reshape(lax.transpose(x, list(dims) + rest), (n, m)) for x in flat_ops]

    def scalar_comp(*args):
        k = len(args) // 2
        left = tree_util.tree_unflatten(init_tree, list(args[:k]))
        right = tree_util.tree_unflatten(init_tree, list(args[k:]))
        out, out_tree = tree_util.tree_flatten(computation(left, right))
        if out_tree != init_tree:
            raise ArgumentTypeError(f"lax.reduce: computation returned {out_tree}, which is not "
                                    f"the structure of init_values ({init_tree})")
        return tuple(out)

    combine = vmap(scalar_comp)

    def apply(left, right, size):
        outs = combine(*[lax.reshape(x, (size * m,)) for x in left + right])
        for o, a in zip(outs, avals):
            if core.get_aval(o).dtype != a.dtype:
                raise DTypeError(f"lax.reduce: computation returned dtype "
                                 f"{core.get_aval(o).dtype} for an operand of dtype {a.dtype}")
        return [lax.reshape(o, (size, m)) for o in outs]

    while n > 1:  # neighbours combined in order; an odd last entry waits a round
        half = n // 2
        pairs = apply([lax.slice_in_dim(x, 0, 2 * half, 2) for x in xs],
                      [lax.slice_in_dim(x, 1, 2 * half, 2) for x in xs], half)
        if n % 2:
            pairs = [lax.concatenate([p, lax.slice_in_dim(x, n - 1, n)], 0)
                     for p, x in zip(pairs, xs)]
        xs, n = pairs, half + n % 2
    starts = [lax.broadcast(i, (1, m)) for i in inits]
    if n == 1:  # the initial value enters once, first (XLA's order)
        starts = apply(starts, xs, 1)
    return [lax.reshape(x, rest_shape) for x in starts]


# ------------------------------------------------------------------- associative_scan

def _interleave(evens, odds, axis):
    """Entries of `evens` at positions 0, 2, ... and of `odds` at 1, 3, ... along
    `axis` (len(evens) is len(odds) or one more): as JAX, each is
    padded with zeros at the other's positions and the two are added (or-ed for bool),
    so the result is strong unless both are weak and a -0.0 entry comes out +0.0."""
    ndim = core.get_aval(evens).ndim
    ne, no = core.get_aval(evens).shape[axis], core.get_aval(odds).shape[axis]

    def spread(x, lo, hi):
        cfg = [(0, 0, 0)] * ndim
        cfg[axis] = (lo, hi, 1)
        return lax.pad(x, np.zeros((), core.get_aval(x).dtype)[()], cfg)
    op = lax.bitwise_or if core.get_aval(evens).dtype == np.bool_ else lax.add
    return op(spread(evens, 0, 1 if ne == no else 0), spread(odds, 1, 0 if ne == no else 1))


def associative_scan(fn, elems, reverse=False, axis=0):
    """`lax.associative_scan`: inclusive prefix combination of `elems` (a pytree of
    arrays of one length along `axis`) with the associative `fn`, which combines two
    pytrees like `elems` entry by entry along `axis`. Entry k of the result is
    `fn(...fn(fn(e0, e1), e2)..., ek)`; with `reverse`, the scan runs from the end
    (`[..., fn(fn(z, y), x), fn(z, y), z]`)."""
    leaves, tree = tree_util.tree_flatten(elems)
    if not leaves:
        raise ArgumentValueError("associative_scan needs at least one array in elems")
    ndim = core.get_aval(leaves[0]).ndim
    try:
        axis = operator.index(axis)
    except TypeError:
        raise ArgumentTypeError(f"associative_scan: axis must be an integer, "
                                f"got {axis!r:.40}") from None
    if not -ndim <= axis < ndim:
        raise ArgumentValueError(f"associative_scan: axis {axis} is out of bounds for array "
                                 f"of dimension {ndim}")
    axis %= ndim
    shapes = [core.get_aval(x).shape for x in leaves]
    if any(len(s) <= axis for s in shapes) or len({s[axis] for s in shapes}) != 1:
        raise ArgumentValueError("Array inputs to associative_scan must have the same first "
                                 f"dimension. (saw: {shapes})")
    if reverse:
        leaves = [lax.rev(x, (axis,)) for x in leaves]

    def combine(a, b):
        out, out_tree = tree_util.tree_flatten(fn(tree_util.tree_unflatten(tree, a),
                                                  tree_util.tree_unflatten(tree, b)))
        if out_tree != tree:
            raise ArgumentTypeError(f"associative_scan: fn returned {out_tree}, which is not "
                                    f"the structure of elems ({tree})")
        return out

    def cut(xs, start, stop, step=1):
        return [lax.slice_in_dim(x, start, stop, step, axis) for x in xs]

    def scan(xs):
        n = core.get_aval(xs[0]).shape[axis]
        if n < 2:
            return xs
        odds = scan(combine(cut(xs, 0, n - 1, 2), cut(xs, 1, n, 2)))
        if n % 2 == 0:
            n_odd = core.get_aval(odds[0]).shape[axis]
            evens = combine(cut(odds, 0, n_odd - 1), cut(xs, 2, n, 2))
        else:
            evens = combine(odds, cut(xs, 2, n, 2))
        evens = [lax.concatenate([first, e], axis) for first, e in zip(cut(xs, 0, 1), evens)]
        return [_interleave(e, o, axis) for e, o in zip(evens, odds)]

    out = scan(leaves)
    if reverse:
        out = [lax.rev(x, (axis,)) for x in out]
    return tree_util.tree_unflatten(tree, out)


@_entry_point
def map(f, xs, *, batch_size=None):  # noqa: A001 -- JAX's name
    """JAX's `lax.map`: `f` applied to each leading-axis slice of `xs`; with
    `batch_size`, `vmap(f)` on `batch_size` slices at a time (the rest in one last
    batch)."""
    lax._checked("lax.map", f, 1)
    if batch_size is None:
        return _scan_mod.map(f, xs)
    leaves, treedef = tree_util.tree_flatten(xs)
    if not leaves:
        return _scan_mod.map(vmap(f), xs)
    n = core.get_aval(leaves[0]).shape[0]
    batches, rest = (0, n) if batch_size == 0 else divmod(n, batch_size)
    whole = batches * batch_size
    body = vmap(f)
    shapes = [core.get_aval(x).shape for x in leaves]
    # (the slices first, as JAX's `_batch_and_remainder`; lax_extended's: a leaf may
    # be an array of keys)
    scan_xs = treedef.unflatten([_ext.reshape(
        _ext.slice(x, (0,) * len(s), (whole,) + s[1:]), (batches, batch_size) + s[1:])
        for x, s in zip(leaves, shapes)]) if batches else None
    rest_xs = treedef.unflatten([_ext.slice(x, (whole,) + (0,) * (len(s) - 1), s)
                                 for x, s in zip(leaves, shapes)]) if rest else None
    scan_ys = _scan_mod.map(body, scan_xs) if batches else None
    rest_ys = body(rest_xs) if rest else None
    if scan_ys is None:
        return rest_ys
    ys = tree_util.tree_map(lambda y: _ext.reshape(y, (whole,) + core.get_aval(y).shape[2:]),
                            scan_ys)
    return ys if rest_ys is None else tree_util.tree_map(
        lambda a, b: _ext.concatenate([a, b], 0), ys, rest_ys)
