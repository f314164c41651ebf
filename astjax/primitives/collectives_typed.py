"""Collectives that change a value's manual-axis type: `pvary` (`lax.pcast(x, axes,
to='varying')`: Invariant -> Varying, the same values), JAX's `psum_invariant`,
`all_gather_invariant` (`lax.all_gather(x, axes, to='invarying')`) and
`all_gather_reduced` (`to='reduced'`), with every rule and their wrappers.

`all_gather` is Varying -> Varying: inside a `shard_map` body with `check_vma` its
result varies over the gathered axes (`primitives/vma.py`), so an out_spec must name
them. `all_gather_invariant` is Varying -> Invariant: every device along the axes
holds the same gathered value, which is typed invariant over them (`f32[4,2]{V:y}`
after gathering `f32[2,2]{V:(x,y)}` over 'x') and may leave a replicated out_spec.
Its params are JAX's (`axis_name` always a tuple, no `axis_index_groups`: JAX
refuses groups with NotImplementedError); it lowers to the same
`stablehlo.all_gather` and is linear. Over a `vmap` axis it is JAX's ValueError (JAX
first casts the operand to varying with `pvary`, which needs a shard_map); a
`shard_map` or `pmap` staged under `vmap` batches it as `all_gather` is batched.

Transposes: astjax's per-device convention (`collectives.py`: `psum` transposes to
`psum`; `shard_map`'s transpose hands each device its share of a replicated result's
cotangent) gives `pvary` the identity (printed as a `pvary`), `psum_invariant` a sum
of the cotangents and `all_gather_invariant` `all_gather`'s (the summed cotangent,
this device's slice). A reverse mode taken *inside* a `check_vma` body is JAX's typed
one instead (`typed_transposes`, set by `vma_reverse.typed_backward`): an invariant
cotangent holds the whole value, `pvary` transposes to `psum_invariant`,
`psum_invariant` (and `psum` over manual axes: `typed_sum_transpose`) to `pvary`,
`all_gather_invariant` to this device's slice of the cotangent.

`psum_invariant` is JAX's `psum` inside a `check_vma` body (Varying -> Invariant over
the axes; JAX's params: `axes` only): `lax.psum` binds it there, after a `pvary` of the
axes its operand does not vary over. Its other rules are `psum`'s.

`all_gather_reduced` is Varying -> Reduced: the gathered value is invariant over the
axes, as `all_gather_invariant`'s, and typed *reduced* over them: a result an
out_spec declares `reduced={'x'}` keeps that in its layout (`P(None, 'y',
reduced={'x'})`); its cotangent is unreduced (partial sums). Typed (a reverse mode
inside a body), its transpose is JAX's: `unreduced_reduce_scatter`
(`collectives_scatter.py`, JAX's `unreduced_psum_scatter`); per device (the body
transposed from outside: spmd.py's boundary splits the replicated cotangent) it is
`all_gather`'s, the same gradients. Not batched (JAX's NotImplementedError).
"""
from __future__ import annotations

import threading

import numpy as np

from .. import core, tree_util, util
from ..config import config
from ..core import bind
from ..errors import (ArgumentTypeError, ArgumentValueError, AxisNameError,
                      NotImplementedInAstjaxError, caller_location)
from .base import deflinear, is_zero, lax_ops, mark_unsupported, moveaxis, register
from .collectives import _check, _leaf, _varying, all_gather_p, psum_p

__all__ = ["typed_transposes", "transposing_typed", "typed_sum_transpose", "pvary_p", "pcast",
           "collective_pvary", "all_gather_invariant_p", "all_gather_invariant",
           "all_gather_reduced_p", "all_gather_reduced", "psum_invariant_p", "psum_invariant"]

# ------------------------------------------------------ typed and per-device transposes
_mode = threading.local()


def typed_transposes(on=True) -> util.pushed:
    """While a reverse mode taken inside a `check_vma` body is staged (`on`;
    `vma_reverse.transposing`), or a shard_map body inside one (off: `vma.staging_body`):
    the transposes of the casts below are JAX's typed ones (`pvary` <-> `psum_invariant`,
    an invariant cotangent holding the whole value), not the per-device adjoints."""
    return util.pushed(_mode.__dict__.setdefault("stack", []), on)


def transposing_typed():
    """Whether the transposes being staged are JAX's typed ones (`typed_transposes`)."""
    modes = getattr(_mode, "stack", None)
    return bool(modes) and modes[-1]


# ------------------------------------------------------------------------- pvary
# `lax.pcast(x, axes, to='varying')`: the same value, typed as varying over `axes`
# (shard_map's check_vma). astjax's shard_map transpose sums a replicated operand's
# cotangent at the boundary (`primitives/shard_map.py`), so pvary's per-device transpose is the
# identity (printed as a pvary); typed (`typed_transposes`), JAX's: a `psum_invariant`.
pvary_p = core.new_primitive("pvary")


def _pvary_batch(args, dims, *, axes):
    frame = core.axis_frame()
    rest = tuple(a for a in axes if a != frame.name)
    return (bind(pvary_p, args[0], axes=rest) if rest else args[0]), dims[0]


register(pvary_p, abstract_eval=lambda x, *, axes: x, lowering=lambda ctx, x, *, axes: x,
         batch=_pvary_batch)
deflinear(pvary_p, lambda ct, x, *, axes: [
    None if is_zero(ct) else bind(psum_invariant_p if transposing_typed() else pvary_p, ct,
                                  axes=axes)])
mark_unsupported(pvary_p, "impl", "a collective only means something under a mapped axis "
                 "(vmap/pmap); there is no single-array NumPy reference")

_PCAST_TO = ("unreduced", "reduced", "varying")


def pcast(x, axis_name, *, to):
    """`lax.pcast(x, axis_name, to='varying')`: `x` (invariant over the named axes)
    typed as varying over them, e.g. a scan carry's initial value that the body
    makes varying (shard_map's `check_vma`). The same values."""
    if isinstance(axis_name, (set, frozenset)):
        raise ArgumentTypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got "
                                f"{axis_name}", loc=caller_location())
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    if to not in _PCAST_TO:
        raise ArgumentValueError("Got unexpected `to` value. Allowed `to` values are: "
                                 "{'reduced', 'unreduced', 'varying'}", loc=caller_location())
    if to != "varying":
        raise NotImplementedInAstjaxError(
            f"lax.pcast(..., to={to!r}): unreduced and reduced values are not supported",
            loc=caller_location())
    _check(axes)
    return tree_util.tree_map(lambda v: bind(pvary_p, _leaf(v), axes=axes), x)


def collective_pvary(x, names):
    """`x` cast to vary over the manual axes among `names` it does not vary over, inside
    a `check_vma` body (JAX's implicit pvary before `all_gather`, `ppermute`,
    `all_to_all`, `pmax`, `pmin`, `psum_scatter`, `all_gather(to='invarying')`: their
    transposes then sum an invariant operand's cotangent)."""
    from .vma import _bodies, enclosing_body, staged_vma   # (a later family)
    body = enclosing_body()
    if body is None or _bodies()[-1][3] is None or not config.read("jax_auto_pcast") \
            or len(core._state.builders) <= _bodies()[-1][0]:
        return x
    vma = staged_vma(x)
    axes = [a for a in names if a in body[2] and vma is not None and a not in vma]
    return bind(pvary_p, x, axes=_mesh_ordered(axes, body[0])) if axes else x


def _mesh_ordered(axes, mesh):
    order = list(mesh.axis_names)
    return tuple(sorted(axes, key=lambda a: order.index(a) if a in order else len(order)))


all_gather_invariant_p = core.new_primitive("all_gather_invariant")


def _as_gather(axis_name, all_gather_dimension, axis_size, tiled):
    """`all_gather`'s params for the same data movement."""
    return dict(all_gather_dimension=all_gather_dimension, axis_name=axis_name,
                axis_index_groups=None, axis_size=axis_size, tiled=tiled)


def _abstract_eval(x, *, all_gather_dimension, axis_name, axis_size, tiled):
    return all_gather_p.abstract_eval(
        x, **_as_gather(axis_name, all_gather_dimension, axis_size, tiled))


def _lowering(ctx, x, *, all_gather_dimension, axis_name, axis_size, tiled):
    return all_gather_p.lowering(
        ctx, x, **_as_gather(axis_name, all_gather_dimension, axis_size, tiled))


def _transpose(ct, x, *, all_gather_dimension, axis_name, axis_size, tiled):
    # (the module docstring: summed over the axes, this device's slice; typed, JAX's: the
    # invariant cotangent holds the whole value, this device's slice of it)
    if not transposing_typed() or is_zero(ct):
        return all_gather_p.transpose(
            ct, x, **_as_gather(axis_name, all_gather_dimension, axis_size, tiled))
    lax = lax_ops()
    n = core.get_aval(ct).shape[all_gather_dimension] // axis_size
    i = lax.mul(lax.axis_index(axis_name), np.int32(n))
    out = lax.dynamic_slice_in_dim(ct, i, n, all_gather_dimension)
    return [out if tiled else lax.squeeze(out, (all_gather_dimension,))]


def _batch(args, dims, *, all_gather_dimension, axis_name, axis_size, tiled):
    frame = core.axis_frame()
    params = dict(all_gather_dimension=all_gather_dimension, axis_name=axis_name,
                  axis_size=axis_size, tiled=tiled)
    if frame.name not in axis_name:   # over other axes: the batch dim rides along
        x, d = args[0], dims[0]
        if d is None:
            return bind(all_gather_invariant_p, x, **params), None
        params["all_gather_dimension"] = all_gather_dimension + 1
        return bind(all_gather_invariant_p, moveaxis(x, d, 0), **params), 0
    # over the batched axis: the stacked lanes, the same for every lane (unmapped)
    return all_gather_p.batch(
        args, dims, **_as_gather(axis_name, all_gather_dimension, axis_size, tiled))


register(all_gather_invariant_p, abstract_eval=_abstract_eval, lowering=_lowering,
         batch=_batch)
deflinear(all_gather_invariant_p, _transpose)
all_gather_invariant_p.always_batch = True
mark_unsupported(all_gather_invariant_p, "impl", "a collective only means something under "
                 "a mapped axis (vmap/pmap/shard_map); there is no single-array NumPy "
                 "reference")


def all_gather_invariant(x, axis_name, *, axis=0, tiled=False):
    """`lax.all_gather(x, axis_name, to='invarying')` (JAX's `all_gather_invariant`):
    every lane's `x` stacked (or concatenated if `tiled`) along `axis`, typed
    invariant over the named axes inside a `shard_map` body."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    if not names:
        return x
    sizes = [core.axis_size(a, loc=caller_location()) for a in names]
    kinds = {f.name: f.kind for f in core.axis_frames()}   # (the innermost of a name)
    if any(kinds[n] == "vmap" for n in names):
        # JAX makes the operand vary over the axes first (`pvary`), which only a
        # shard_map body allows
        raise ArgumentValueError("pvary should be called under jax.shard_map.",
                                 hint="gather over a vmap axis with to='varying' (the "
                                      "default)", loc=caller_location())
    bound = {f.name for f in core.axis_frames("shard_map")}
    if len(names) != 1 and not all(n in bound for n in names):
        raise AxisNameError("all_gather over several axes at once is supported inside "
                            "shard_map only", loc=caller_location())
    size = int(np.prod(sizes))

    def gather(v):
        v = _varying(_leaf(v), names)
        nd = core.get_aval(v).ndim   # (a tiled scalar: all_gather's ShapeError)
        ax = axis % (nd if tiled else nd + 1) if (nd or not tiled) else axis
        return bind(all_gather_invariant_p, v, all_gather_dimension=int(ax),
                    axis_name=names, axis_size=size, tiled=bool(tiled))
    return tree_util.tree_map(gather, x)


# ------------------------------------------------------------- all_gather_reduced
all_gather_reduced_p = core.new_primitive("all_gather_reduced")
register(all_gather_reduced_p, abstract_eval=_abstract_eval, lowering=_lowering)


def _reduced_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size, tiled):
    # (the module docstring: typed, JAX's unreduced_psum_scatter; else all_gather's)
    if transposing_typed() and not is_zero(ct):
        from .collectives_scatter import unreduced_transpose   # (a later family)
        return [unreduced_transpose(ct, all_gather_dimension, axis_name, axis_size, tiled)]
    return all_gather_p.transpose(ct, x, **_as_gather(axis_name, all_gather_dimension,
                                                      axis_size, tiled))


deflinear(all_gather_reduced_p, _reduced_transpose)
mark_unsupported(all_gather_reduced_p, "batch", "Please file an issue at "
                 "https://github.com/jax-ml/jax/issues (JAX does not batch it either)")
mark_unsupported(all_gather_reduced_p, "impl", "a collective only means something inside "
                 "a shard_map body; there is no single-array NumPy reference")


def all_gather_reduced(x, axis_name, *, axis=0, tiled=False):
    """`lax.all_gather(x, axis_name, to='reduced')` (JAX's `all_gather_reduced`):
    every device's `x` stacked (or concatenated if `tiled`) along `axis`, typed
    invariant and reduced over the named axes inside a `shard_map` body."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    if not names:
        return x
    size = int(np.prod([core.axis_size(a, loc=caller_location()) for a in names]))

    def gather(v):
        v = np.asarray(v) if isinstance(v, (list, tuple)) else v
        nd = core.get_aval(v).ndim
        ax = axis % (nd if tiled else nd + 1) if (nd or not tiled) else axis
        return bind(all_gather_reduced_p, v, all_gather_dimension=int(ax),
                    axis_name=names, axis_size=size, tiled=bool(tiled))
    return tree_util.tree_map(gather, x)


# ------------------------------------------------------------- psum_invariant
psum_invariant_p = core.new_primitive("psum_invariant")


def _as_psum(rule):
    return lambda *args, axes: rule(*args, axes=axes, axis_index_groups=None)


def _psum_invariant_batch(args, dims, *, axes):
    if core.axis_frame().name not in axes:   # (over other axes: the batch dim rides along)
        return bind(psum_invariant_p, args[0], axes=axes), dims[0]
    return psum_p.batch(args, dims, axes=axes, axis_index_groups=None)


register(psum_invariant_p, abstract_eval=lambda x, *, axes: x,
         lowering=_as_psum(psum_p.lowering), batch=_psum_invariant_batch)
deflinear(psum_invariant_p, lambda ct, x, *, axes: [   # (the module docstring)
    None if is_zero(ct) else _first(typed_sum_transpose(ct, axes),
                                    lambda: bind(psum_invariant_p, ct, axes=axes))])
psum_invariant_p.always_batch = True
mark_unsupported(psum_invariant_p, "impl", "a collective only means something inside a "
                 "shard_map body; there is no single-array NumPy reference")


def _first(value, otherwise):
    return otherwise() if value is None else value


def typed_sum_transpose(ct, axes):
    """While typed transposes are staged (`typed_transposes`), JAX's transpose of a sum
    over the manual `axes` of an operand varying over them (`psum_invariant`, and
    `psum` inside a `check_vma` body, whose wrappers cast the operand first): the
    cotangent cast to vary over them (`pvary`); else None."""
    if not transposing_typed():
        return None
    from .vma import enclosing_body   # (a later family)
    body = enclosing_body()
    if body is None or not set(axes) <= body[2]:
        return None
    return bind(pvary_p, ct, axes=_mesh_ordered(axes, body[0]))


def psum_invariant(x, axes, vma):
    """JAX's `psum` of a staged value `x` varying over `vma` (None: not known) inside a
    `check_vma` body: a `pvary` of the `axes` it does not vary over (`jax_auto_pcast`),
    then `psum_invariant`."""
    rest = tuple(a for a in axes if vma is not None and a not in vma)
    if rest and config.read("jax_auto_pcast"):
        from .vma import enclosing_body   # (a later family)
        mesh = enclosing_body()[0]
        x = bind(pvary_p, x, axes=tuple(a for a in mesh.axis_names if a in rest))
    return bind(psum_invariant_p, x, axes=tuple(axes))
