"""`reduce_scatter`, JAX's primitive for `lax.psum_scatter` (the sum of `x` over named
axes, of which each lane keeps its chunk along `scatter_dimension`), with every rule
and its wrapper; JAX's params (`axis_name` a tuple, `scatter_dimension`,
`axis_index_groups`, `axis_size`: the group size, `tiled`).

- abstract evaluation: `scatter_dimension` divided by `axis_size` (`tiled`) or
  removed; JAX's ValueErrors when it does not fit. Inside a `check_vma` body the
  wrapper first casts the operand to vary over the axes (`collective_pvary`); the
  result varies as the operand (`primitives/vma.py`'s default rule).
- lowering: `stablehlo.reduce_scatter` with an add region over the lanes' replica
  groups (`pmap`) or groups of partitions with a channel (`shard_map`), then a
  reshape that drops the unit dimension when not `tiled` (JAX's lowering).
- linear: the JVP is `reduce_scatter` of the tangent; the transpose is `all_gather`
  of the cotangent along `scatter_dimension` (JAX's; `all_gather`'s transpose is a
  `reduce_scatter` in turn, `collectives.py`). Both conventions agree here (a
  Varying -> Varying collective): the per-device adjoint and JAX's typed one.
- batching: over another axis the batch dimension rides along; over the axis being
  batched it is a sum over the batch dimension (the lane's chunk: the sum's
  `scatter_dimension`, split into (lanes, chunk) when `tiled`), JAX's rule.
- printed source: `lax.psum_scatter(...)` with the equation's params.

`unreduced_reduce_scatter` is JAX's Unreduced -> Varying collective: `psum_scatter` of
a value unreduced over the axes (partial sums: `P(..., unreduced={'x'})` inputs, a
reduced value's cotangent) adds the partial sums and keeps this device's chunk; it is
the typed transpose of `all_gather(..., to='reduced')` (`collectives_typed`) and
transposes back to it. Not batched (JAX's NotImplementedError).
"""
from __future__ import annotations

import numpy as np

from .. import core, tree_util
from ..core import ShapedArray, bind
from ..errors import ArgumentValueError, AxisNameError, caller_location
from ..pyast import call, pyconst
from .base import deflinear, is_zero, lax_ops, mark_unsupported, register
from .collectives import (_check, _collective_attrs, _index_groups, _leaf, _names,
                          _no_vmap_groups, _reducer_op, _times_size, _varying,
                          all_gather_p)
from .collectives_typed import all_gather_reduced_p
from .reductions import reduce_sum_p

__all__ = ["reduce_scatter_p", "psum_scatter", "unreduced_reduce_scatter_p",
           "unreduced_transpose"]

reduce_scatter_p = core.new_primitive("reduce_scatter")


def _misfit(n, axis_size, tiled):
    """JAX's ValueError message when a scatter dimension of size `n` does not fit the
    lanes, else None."""
    if tiled and n % axis_size:
        return (f"tiled reduce_scatter operand scatter dimension size {n} must be "
                f"divisible by shard_count {axis_size}")
    if not tiled and n != axis_size:
        return f"reduce_scatter operand scatter dimension size {n} must match shard count " \
               f"{axis_size}"
    return None


def _scattered_shape(shape, scatter_dimension, axis_size, tiled):
    """The result's shape, or JAX's ValueError."""
    shape = list(shape)
    why = _misfit(shape[scatter_dimension], axis_size, tiled)
    if why:
        raise ArgumentValueError(why)
    if tiled:
        shape[scatter_dimension] //= axis_size
    else:
        del shape[scatter_dimension]
    return tuple(shape)


def _reduce_scatter_ae(x, *, axis_name, scatter_dimension, axis_index_groups, axis_size,
                       tiled):
    return ShapedArray(_scattered_shape(x.shape, scatter_dimension, axis_size, tiled),
                       x.dtype, x.weak_type)


def _reduce_scatter_lowering(ctx, x, *, axis_name, scatter_dimension, axis_index_groups,
                             axis_size, tiled):
    attrs, _, _ = _collective_attrs(ctx, axis_name, axis_index_groups)
    aval = ctx.avals_in[0]
    scalar = ShapedArray((), aval.dtype)
    op = _reducer_op("sum", aval.dtype)
    body = ctx.region([scalar, scalar], lambda a, b: [ctx.mb.op(op, [a, b], [scalar])[0]])
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    out = ctx.op1("stablehlo.reduce_scatter", [x], aval.update(shape=tuple(shape)),
                  regions=[body],
                  attrs={"scatter_dimension": f"{int(scatter_dimension)} : i64", **attrs})
    return out if tiled else ctx.op1("stablehlo.reshape", [out])


def _reduce_scatter_transpose(ct, x, *, axis_name, scatter_dimension, axis_index_groups,
                              axis_size, tiled):
    if is_zero(ct):
        return [None]
    return [bind(all_gather_p, ct, all_gather_dimension=scatter_dimension,
                 axis_name=axis_name, axis_index_groups=axis_index_groups,
                 axis_size=axis_size, tiled=tiled)]


def _reduce_scatter_batch(args, dims, *, axis_name, scatter_dimension, axis_index_groups,
                          axis_size, tiled):
    frame = core.axis_frame()
    (x,), (d,) = args, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if frame.name not in axis_name:    # over other axes: the batch dim rides along
        if d is None:
            return bind(reduce_scatter_p, x, scatter_dimension=scatter_dimension,
                        **params), None
        if d <= scatter_dimension:
            scatter_dimension += 1
        elif not tiled:
            d -= 1
        return bind(reduce_scatter_p, x, scatter_dimension=scatter_dimension, **params), d
    _no_vmap_groups(axis_index_groups, "axis_index_groups not supported in vmap")
    if len(axis_name) > 1:
        raise NotImplementedError("Please open a feature request!")
    # lane i keeps chunk i of the sum over the lanes: the sum, batched along its
    # scatter dimension (split into (lanes, chunk) when tiled)
    y = _times_size(x, frame.size) if d is None else bind(reduce_sum_p, x, axes=(d,),
                                                          out_sharding=None)
    if tiled:
        shape = list(core.get_aval(y).shape)
        k = scatter_dimension
        shape[k:k + 1] = [axis_size, shape[k] // axis_size]
        y = lax_ops().reshape(y, tuple(shape))
    return y, scatter_dimension


def _reduce_scatter_source(gen, eqn):
    p = eqn.params
    groups = p["axis_index_groups"]
    return call("lax.psum_scatter", [gen.arg(eqn.invars[0]), gen.value(p["axis_name"])],
                scatter_dimension=pyconst(int(p["scatter_dimension"])),
                axis_index_groups=gen.value(groups) if groups is not None else pyconst(None),
                tiled=pyconst(bool(p["tiled"])))


register(reduce_scatter_p, abstract_eval=_reduce_scatter_ae,
         lowering=_reduce_scatter_lowering, batch=_reduce_scatter_batch,
         source=_reduce_scatter_source)
deflinear(reduce_scatter_p, _reduce_scatter_transpose)
reduce_scatter_p.always_batch = True


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """`lax.psum_scatter`: the sum of `x` over the named axes, of which lane `i` keeps
    chunk `i` along `scatter_dimension` (the whole dimension, one entry per lane, unless
    `tiled`); with `axis_index_groups`, the sum is over each group and the chunk is the
    lane's position in its group. Binds `reduce_scatter` leaf by leaf, after JAX's
    implicit `pvary` inside a `check_vma` body; of a value unreduced over the axes
    (partial sums), `unreduced_reduce_scatter`, as JAX."""
    names = _names(axis_name)
    if not names:
        return x
    groups = _index_groups(axis_index_groups)
    sizes = _check(names)
    bound = {f.name for f in core.axis_frames("shard_map")}
    if len(names) != 1 and not all(n in bound for n in names):
        raise AxisNameError("psum_scatter over several axes at once is supported inside "
                            "shard_map only", loc=caller_location())
    size = int(np.prod(sizes)) if groups is None else len(groups[0])

    def scatter(v):
        if _unreduced_over(v, names):
            if groups is not None:   # (JAX's own refusal)
                raise NotImplementedError
            return _unreduced_scatter(v, names, scatter_dimension, size, tiled)
        v = _varying(_leaf(v), names)
        a = core.get_aval(v)
        d = scatter_dimension % a.ndim if a.ndim else scatter_dimension
        why = (f"psum_scatter: scatter_dimension {scatter_dimension} is out of bounds for "
               f"shape {a.shape}") if not 0 <= d < a.ndim else _misfit(a.shape[d], size, tiled)
        if why:
            raise ArgumentValueError(why, loc=caller_location())
        return bind(reduce_scatter_p, v, axis_name=names, scatter_dimension=int(d),
                    axis_index_groups=groups, axis_size=size, tiled=bool(tiled))
    return tree_util.tree_map(scatter, x)


# ------------------------------------------------------ unreduced_reduce_scatter
# JAX's Unreduced -> Varying collective: `psum_scatter` of a value unreduced over the
# axes (partial sums, e.g. a reduced value's cotangent), and the typed transpose of
# `all_gather(..., to='reduced')`; it transposes back to that.
unreduced_reduce_scatter_p = core.new_primitive("unreduced_reduce_scatter")


def _unreduced_params(rule):
    return lambda *args, axis_name, scatter_dimension, axis_size, tiled: rule(
        *args, axis_name=axis_name, scatter_dimension=scatter_dimension,
        axis_index_groups=None, axis_size=axis_size, tiled=tiled)


register(unreduced_reduce_scatter_p, abstract_eval=_unreduced_params(_reduce_scatter_ae),
         lowering=_unreduced_params(_reduce_scatter_lowering))
deflinear(unreduced_reduce_scatter_p, lambda ct, x, *, axis_name, scatter_dimension,
          axis_size, tiled: [None if is_zero(ct) else bind(
              all_gather_reduced_p, ct, all_gather_dimension=scatter_dimension,
              axis_name=axis_name, axis_size=axis_size, tiled=tiled)])
mark_unsupported(unreduced_reduce_scatter_p, "batch", "Please file an issue at "
                 "https://github.com/jax-ml/jax/issues (JAX does not batch it either)")
for _p in (reduce_scatter_p, unreduced_reduce_scatter_p):
    mark_unsupported(_p, "impl", "a collective only means something under a mapped axis "
                     "(vmap/pmap/shard_map); there is no single-array NumPy reference")


def _unreduced_over(v, names):
    """Whether `v`, staged inside a shard_map body, is unreduced over the named axes
    (JAX's psum_scatter then binds `unreduced_reduce_scatter`); over some of them
    only: JAX's ValueError."""
    from .vma import enclosing_body, staged_unreduced   # (a later family)
    if not isinstance(v, core.Tracer) or enclosing_body() is None:
        return False
    ur = staged_unreduced(v) & set(names)
    if ur and ur != set(names):
        raise ArgumentValueError(
            "jax.lax.psum_scatter can only accept axis_name which corresponds to one of "
            "varying, unreduced, reduced or invarying state of the input. Got axes: "
            f"{names}, of which {tuple(sorted(ur))} unreduced", loc=caller_location())
    return bool(ur)


def _unreduced_scatter(v, names, scatter_dimension, size, tiled):
    a = core.get_aval(v)
    d = scatter_dimension % a.ndim if a.ndim else scatter_dimension
    return bind(unreduced_reduce_scatter_p, v, axis_name=names, scatter_dimension=int(d),
                axis_size=size, tiled=bool(tiled))


def unreduced_transpose(ct, all_gather_dimension, axis_name, axis_size, tiled):
    """The typed transpose of `all_gather(..., to='reduced')` (`collectives_typed`):
    the unreduced cotangent scattered (JAX's `unreduced_psum_scatter`)."""
    return bind(unreduced_reduce_scatter_p, ct, axis_name=axis_name,
                scatter_dimension=all_gather_dimension, axis_size=axis_size, tiled=tiled)
