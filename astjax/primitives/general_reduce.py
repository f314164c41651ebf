"""`reduce_p`: XLA's reduction with a user computation, over one or several operands
(`lax.reduce` when its computation is not one of the recognised monoids).

Operands are the arrays followed by their scalar initial values; params are the
computation as a closed jaxpr on scalars (2n inputs -> n outputs) and the reduced
`dimensions`. The block holds the NumPy reference (the computation applied in XLA's
CPU order: the initial value first, then each entry in turn), abstract evaluation,
the lowering (`stablehlo.reduce` whose body region is the lowered jaxpr), the batching
rule (the batch axis is kept) and the printed source. Derivatives are not this
primitive's: `lax.reduce` (astjax/lax_combiners.py) wraps it in a custom JVP whose
tangent is JAX's rule, a balanced tree of the computation.
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import core
from ..core import ShapedArray, bind
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError
from .base import mark_unsupported, moveaxis, region_body, register
from .structural import broadcast_in_dim

__all__ = ["reduce_p"]

reduce_p = core.new_primitive("reduce", multiple_results=True)


def _reduce_ae(*avals, jaxpr, dimensions):
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    shape = ops[0].shape
    if any(a.shape != shape for a in ops):
        raise ArgumentValueError("reduce operands must all have the same shape, got "
                                 f"{[a.shape for a in ops]}")
    if any(i.shape != () for i in inits):
        raise ArgumentTypeError("reduce: init_values must be scalars, got shapes "
                                f"{[i.shape for i in inits]}")
    if any(o.dtype != i.dtype for o, i in zip(ops, inits)):
        raise DTypeError(f"reduce: operand dtypes {[str(o.dtype) for o in ops]} and "
                         f"init_value dtypes {[str(i.dtype) for i in inits]} must match",
                         hint="cast the initial values to the operands' dtypes")
    if len(set(dimensions)) != len(dimensions) or \
            any(not 0 <= d < len(shape) for d in dimensions):
        raise ArgumentValueError(f"reduce: dimensions {dimensions} must be distinct axes of "
                                 f"the operand shape {shape}")
    out = [v.aval for v in jaxpr.jaxpr.outvars]
    if [(a.shape, a.dtype) for a in out] != [((), o.dtype) for o in ops]:
        raise DTypeError("reduce: the computation must return one scalar per operand, of "
                         f"its dtype; it returns {[str(a) for a in out]}")
    keep = tuple(n for d, n in enumerate(shape) if d not in dimensions)
    return [ShapedArray(keep, o.dtype, o.weak_type and i.weak_type)
            for o, i in zip(ops, inits)]


def _reduce_impl(*args, jaxpr, dimensions):
    n = len(args) // 2
    ops = [np.asarray(a) for a in args[:n]]
    shape = ops[0].shape
    keep = [d for d in range(len(shape)) if d not in dimensions]
    outs = [np.empty(tuple(shape[d] for d in keep), o.dtype) for o in ops]
    for idx in itertools.product(*[range(shape[d]) for d in keep]):
        acc = [np.asarray(i, o.dtype) for i, o in zip(args[n:], ops)]
        for red in itertools.product(*[range(shape[d]) for d in dimensions]):
            full = [0] * len(shape)
            for d, i in zip(keep, idx):
                full[d] = i
            for d, i in zip(dimensions, red):
                full[d] = i
            acc = core.eval_reference(jaxpr.jaxpr, jaxpr.consts, *acc,
                                  *[o[tuple(full)] for o in ops])
            acc = [np.asarray(a, o.dtype) for a, o in zip(acc, ops)]
        for out, a in zip(outs, acc):
            out[idx] = a
    return outs


def _reduce_lowering(ctx, *args, jaxpr, dimensions):
    n = len(args) // 2
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in[:n]]
    region = ctx.region(scalars + scalars, region_body(ctx, jaxpr.jaxpr, jaxpr.consts))
    return ctx.op("stablehlo.reduce", list(args), ctx.avals_out, regions=[region],
                  attrs={"dimensions": ctx.i64(dimensions)})


def _reduce_batch(args, dims, *, jaxpr, dimensions):
    n = len(args) // 2
    size = core.axis_size()
    ops = []
    for x, d in zip(args[:n], dims[:n]):
        if d is None:
            aval = core.get_aval(x)  # unbatched: broadcast along a new leading axis
            x = broadcast_in_dim(x, (size,) + aval.shape, tuple(range(1, aval.ndim + 1)))
        else:
            x = moveaxis(x, d, 0)
        ops.append(x)
    if any(d is not None for d in dims[n:]):
        raise ArgumentValueError("vmap of lax.reduce over its initial values is not "
                                 "supported (as in JAX): keep them unbatched",
                                 hint="pass the initial values as constants")
    shifted = tuple(d + 1 for d in dimensions)
    outs = bind(reduce_p, *ops, *args[n:], jaxpr=jaxpr, dimensions=shifted)
    return outs, [0] * n


register(reduce_p, impl=_reduce_impl, abstract_eval=_reduce_ae, lowering=_reduce_lowering,
         batch=_reduce_batch)
mark_unsupported(reduce_p, "jvp", "lax.reduce differentiates a general reduction through "
                                  "its custom JVP (JAX's tree rule): bind it through lax.reduce")
