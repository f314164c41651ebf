"""Windowed operations with user computations: `reduce_window_p` (XLA's reduce_window
whose reducer is a staged function: `lax.reduce_window` with anything but the sum / max /
min monoids) and `select_and_scatter_p` (XLA's select_and_scatter with a user `select`
and `scatter`), and the `lax.reduce_window` wrapper that chooses between them.

Both keep their computations as JAX does: an open jaxpr on scalars in a param
(`jaxpr`; `select_jaxpr` / `scatter_jaxpr`) beside its constants (`consts`;
`select_consts` / `scatter_consts`), so `make_jaxpr` prints what JAX prints. Window
params are `windowed.py`'s.

- `reduce_window_p` takes n operands then n scalar initial values and gives n results.
  Its JVP is JAX's: one reduce_window over (primals, tangents) with the JVP of the
  reducer as its computation (the tangents of the initial values must be zero); no
  transpose (not linear). Batching puts the batch axes in front under a size-1 window;
  batched initial values are JAX's NotImplementedError.
- `select_and_scatter_p(operand, source, init_value)`: each window of `operand` picks
  one element by `select` (a kept element wins while `select(kept, next)` is true); the
  output starts as `init_value` and each `source` entry is combined into its window's
  pick with `scatter`. JAX gives it no derivative (located error here too); batching is
  the size-1 window again.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import (ArgumentTypeError, ArgumentValueError, DerivativeValueError, DTypeError,
                      ShapeError)
from ..errors import NotImplementedInAstjaxError
from .. import tree_util
from .base import bdim_at_front, instantiate, is_zero, mark_unsupported, max_value, min_value
from .base import region_body, register, tangent_aval
from .convolution import padtype_to_pads
from . import elementwise as _ew
from .windowed import (_batch_window, _check, _dilate, _out_shape, _window_attrs, _windows,
                       reduce_window_max_p, reduce_window_min_p, reduce_window_sum_p)

__all__ = ["reduce_window_p", "select_and_scatter_p", "reduce_window", "select_and_scatter"]


def _scalar_jaxpr(fn, tree, avals, what):
    """Stage the user computation `fn(left, right)` on scalars (left and right pytrees
    of structure `tree`) -> (open jaxpr, consts tuple, out tree)."""
    pair = tree_util.tree_structure((tree_util.tree_unflatten(tree, [0] * len(avals)),) * 2)
    jaxpr, consts, out_tree = core.stage_callable(fn, pair, list(avals) * 2)
    if any(isinstance(c, core.Tracer) for c in consts):
        raise NotImplementedInAstjaxError(
            f"{what}: the computation closes over a staged value (as in JAX, window "
            "computations can't close over Tracers)", hint="pass it as an operand instead")
    return jaxpr, tuple(consts), out_tree


def _run(jaxpr, consts, args):
    """The scalar computation on NumPy scalars (the NumPy references below)."""
    return core.eval_reference(jaxpr, list(consts), *args)


# ---- reduce_window: n operands, n initial values, a reducer jaxpr ----------------------


reduce_window_p = core.new_primitive("reduce_window", multiple_results=True,
                                     higher_order=True)


def _rw_ae(*avals, jaxpr, consts, **w):
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(o.dtype != i.dtype for o, i in zip(ops, inits)):
        raise DTypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                         f"got operand dtypes {[str(o.dtype) for o in ops]} and init_value "
                         f"dtypes {[str(i.dtype) for i in inits]}",
                         hint="cast the initial values to the operands' dtypes")
    if any(i.shape != () for i in inits):
        raise ArgumentTypeError("reduce_window expected init_values to be scalars but "
                                f"init_values have shapes {[i.shape for i in inits]}")
    if any(o.shape != ops[0].shape for o in ops):
        raise ShapeError(f"reduce_window operands must have one shape, got "
                         f"{[o.shape for o in ops]}")
    _check("reduce_window", ops[0], **w)
    outs = [v.aval for v in jaxpr.outvars]
    if [(a.shape, a.dtype) for a in outs] != [((), o.dtype) for o in ops]:
        raise DTypeError("reduce_window: the computation must return one scalar per operand, "
                         f"of its dtype; it returns {[str(a) for a in outs]}")
    shape = _out_shape(ops[0].shape, **w)
    return [ShapedArray(shape, o.dtype) for o in ops]


def _rw_impl(*args, jaxpr, consts, **w):
    n = len(args) // 2
    inits = [np.asarray(i) for i in args[n:]]
    wins = [_windows(np.asarray(x), i, **w) for x, i in zip(args[:n], inits)]
    # XLA skips padding and base-dilation holes (they are not init_value)
    valid = _windows(np.ones(np.shape(args[0]), bool), False, **w)
    nd = np.ndim(args[0])
    out_shape = wins[0].shape[:nd]
    outs = [np.empty(out_shape, i.dtype) for i in inits]
    for pos in np.ndindex(*out_shape):
        acc = list(inits)
        for off in np.ndindex(*wins[0].shape[nd:]):
            if not valid[pos + off]:
                continue
            elems = [win[pos + off] for win in wins]
            acc = [np.asarray(a, i.dtype) for a, i in
                   zip(_run(jaxpr, consts, acc + elems), inits)]
        for o, a in zip(outs, acc):
            o[pos] = a
    return outs


def _rw_lowering(ctx, *args, jaxpr, consts, **w):
    n = len(args) // 2
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in[n:]]
    region = ctx.region(scalars + scalars, region_body(ctx, jaxpr, consts))
    return ctx.op("stablehlo.reduce_window", list(args), ctx.avals_out,
                  _window_attrs(ctx, **w), regions=[region])


def _rw_jvp(tx, primals, tangents, *, jaxpr, consts, **w):
    n = len(primals) // 2
    if not all(is_zero(t) for t in tangents[n:]):
        raise ArgumentTypeError("reduce_window jvp does not support non-zero "
                                "init_value_tangent.",
                                hint="close over the initial value as a constant")
    ops, inits = primals[:n], primals[n:]
    diff = [core.differentiable(tangent_aval(x)) for x in ops]
    k = sum(diff)
    closed, _ = tx.jvp_jaxpr(core.ClosedJaxpr(jaxpr, list(consts)), diff + diff,
                             instantiate=True)
    t_avals = [tangent_aval(t) for t, d in zip(tangents[:n], diff) if d]
    scalars = [ShapedArray((), a.dtype) for a in [tangent_aval(x) for x in ops]]
    t_scalars = [ShapedArray((), a.dtype) for a in t_avals]

    def comp(*args):   # (left primals, left tangents, right primals, right tangents)
        pl, tl = args[:n], args[n:n + k]
        pr, tr = args[n + k:2 * n + k], args[2 * n + k:]
        return core.inline_jaxpr(closed.jaxpr, closed.consts, [*pl, *pr, *tl, *tr])
    staged = core.stage(comp, (scalars + t_scalars) * 2)
    tans = [instantiate(t, a) for t, a, d in
            zip(tangents[:n], [tangent_aval(x) for x in ops], diff) if d]
    zeros = [np.zeros((), a.dtype) for a in t_avals]
    outs = bind(reduce_window_p, *ops, *tans, *inits, *zeros, jaxpr=staged.jaxpr,
                consts=tuple(staged.consts), **w)
    it = iter(outs[n:])
    t_out = [next(it) if d else core.Zero(tangent_aval(o)) for o, d in zip(outs[:n], diff)]
    return outs[:n], t_out


def _rw_batch(tx, args, dims, *, jaxpr, consts, **w):
    n = len(args) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedInAstjaxError(
            "reduce_window batching is not implemented for initial values (as in JAX)",
            hint="keep the initial values unbatched (constants)")
    size = next(tangent_aval(x).shape[d] for x, d in zip(args[:n], dims[:n]) if d is not None)
    ops = [bdim_at_front(x, d, size) for x, d in zip(args[:n], dims[:n])]
    outs = bind(reduce_window_p, *ops, *args[n:], jaxpr=jaxpr, consts=consts,
                **_batch_window(w, 0))
    return outs, [0] * n


def _rw_partial_eval(tx, eqn, unknowns):
    # Some operands known and others not is what linearizing the JVP above makes (known
    # primals, unknown tangents): the primal results cannot be split from the tangents,
    # so reverse mode fails here, as JAX's linearization does. Otherwise: wholly unknown.
    n = len(eqn.invars) // 2
    if any(unknowns[:n]) and not all(unknowns[:n]):
        raise DerivativeValueError(
            "Linearization failed to produce known values for all output primals: "
            "reverse-mode differentiation of a reduce_window with a general computation "
            "is not supported (as in JAX)", loc=eqn.source_info,
            hint="use forward mode (jax.jvp / jax.jacfwd), or lax.reduce_window with "
                 "lax.add / lax.max / lax.min from their identities")
    return [], [eqn], [True] * len(eqn.outvars)


register(reduce_window_p, impl=_rw_impl, abstract_eval=_rw_ae, lowering=_rw_lowering,
         jvp=_rw_jvp, partial_eval=_rw_partial_eval, batch=_rw_batch)
mark_unsupported(reduce_window_p, "transpose", "a general reduce_window is not linear")


# ---- select_and_scatter: a user select picks, a user scatter combines ----------------


select_and_scatter_p = core.new_primitive("select_and_scatter", higher_order=True)


def _ss_window(window_dimensions, window_strides, padding):
    nd = len(window_dimensions)
    return dict(window_dimensions=window_dimensions, window_strides=window_strides,
                padding=padding, base_dilation=(1,) * nd, window_dilation=(1,) * nd)


def _ss_ae(operand, source, init, *, select_jaxpr, select_consts, scatter_jaxpr,
           scatter_consts, window_dimensions, window_strides, padding):
    if len(window_dimensions) != len(window_strides):
        raise ArgumentTypeError("select_and_scatter got inconsistent window_strides and "
                                f"window_dimensions: got window_strides {window_strides} and "
                                f"window_dimensions {window_dimensions}.")
    w = _ss_window(window_dimensions, window_strides, padding)
    _check("select_and_scatter", operand, **w)
    if init.shape != () or init.dtype != operand.dtype or source.dtype != operand.dtype:
        raise DTypeError(f"select_and_scatter: source {source.str_short(True)} and init_value "
                         f"{init.str_short(True)} must have the operand's dtype "
                         f"({operand.dtype}), the init_value a scalar")
    windows = _out_shape(operand.shape, **w)
    if source.shape != windows:
        raise ShapeError(f"select_and_scatter: source of shape {source.shape} for windows of "
                         f"shape {windows}")
    sel = [v.aval for v in select_jaxpr.outvars]
    if [(a.shape, a.dtype) for a in sel] != [((), np.dtype(np.bool_))]:
        raise DTypeError(f"select_and_scatter: select must return one boolean scalar, it "
                         f"returns {[str(a) for a in sel]}")
    return ShapedArray(operand.shape, operand.dtype)


def _ss_impl(operand, source, init, *, select_jaxpr, select_consts, scatter_jaxpr,
             scatter_consts, window_dimensions, window_strides, padding):
    x, s = np.asarray(operand), np.asarray(source)
    out = np.full(x.shape, init, x.dtype)
    for pos in np.ndindex(*s.shape):
        where = None
        for off in np.ndindex(*window_dimensions):
            idx = tuple(p * st + o - lo for p, st, o, (lo, _) in
                        zip(pos, window_strides, off, padding))
            if not all(0 <= i < n for i, n in zip(idx, x.shape)):
                continue   # padding is never selected
            if where is None or not _run(select_jaxpr, select_consts, [x[where], x[idx]])[0]:
                where = idx
        if where is not None:
            out[where] = _run(scatter_jaxpr, scatter_consts, [out[where], s[pos]])[0]
    return out


def _ss_lowering(ctx, operand, source, init, *, select_jaxpr, select_consts, scatter_jaxpr,
                 scatter_consts, window_dimensions, window_strides, padding):
    scalar = ShapedArray((), ctx.avals_in[0].dtype)
    sel = ctx.region([scalar, scalar], region_body(ctx, select_jaxpr, select_consts))
    scat = ctx.region([scalar, scalar], region_body(ctx, scatter_jaxpr, scatter_consts))
    attrs = _window_attrs(ctx, **_ss_window(window_dimensions, window_strides, padding))
    attrs = {k: attrs[k] for k in ("window_dimensions", "window_strides", "padding")}
    return ctx.op1("stablehlo.select_and_scatter", [operand, source, init],
                   regions=[sel, scat], attrs=attrs)


def _ss_batch(tx, args, dims, *, window_dimensions, window_strides, padding, **params):
    if dims[2] is not None:
        raise NotImplementedInAstjaxError(
            "select_and_scatter batching is not implemented for the initial value",
            hint="keep the initial value unbatched (a constant)")
    size = next(tangent_aval(x).shape[d] for x, d in zip(args[:2], dims[:2]) if d is not None)
    x, s = (bdim_at_front(a, d, size) for a, d in zip(args[:2], dims[:2]))
    return bind(select_and_scatter_p, x, s, args[2], window_dimensions=(1, *window_dimensions),
                window_strides=(1, *window_strides), padding=((0, 0), *padding),
                **params), 0


register(select_and_scatter_p, impl=_ss_impl, abstract_eval=_ss_ae, lowering=_ss_lowering,
         batch=_ss_batch)
mark_unsupported(select_and_scatter_p, "jvp",
                 "JAX defines no differentiation rule for select_and_scatter either")
mark_unsupported(select_and_scatter_p, "transpose",
                 "select_and_scatter with a user scatter is not linear")


def select_and_scatter(operand, select, window_dimensions, window_strides, padding, source,
                       init_value, scatter):
    """XLA's SelectAndScatter (JAX's private `_select_and_scatter`): `select(a, b)` (true
    keeps `a`) picks one element per window of `operand`; the result, `init_value`
    everywhere, combines each `source` entry into its pick with `scatter(acc, s)`."""
    aval = tangent_aval(operand)
    scalar = [ShapedArray((), aval.dtype)]
    tree = tree_util.tree_structure(0)
    sj, sc, _ = _scalar_jaxpr(select, tree, scalar, "select_and_scatter")
    cj, cc, _ = _scalar_jaxpr(scatter, tree, scalar, "select_and_scatter")
    init = init_value if isinstance(init_value, core.Tracer) else \
        np.asarray(init_value, aval.dtype)
    return bind(select_and_scatter_p, operand, source, init, select_jaxpr=sj,
                select_consts=sc, scatter_jaxpr=cj, scatter_consts=cc,
                window_dimensions=tuple(window_dimensions),
                window_strides=tuple(window_strides),
                padding=tuple((int(lo), int(hi)) for lo, hi in padding))


# ---- lax.reduce_window ----------------------------------------------------------------


def _monoid(computation, inits):
    """The `reduce_window_{sum,max,min}_p` that `computation` from the one concrete
    scalar `inits[0]` is (JAX's table: the function object and its exact identity in
    the initial value's own dtype, so `-inf` is max pooling of integers too)."""
    if len(inits) != 1 or isinstance(inits[0], core.Tracer) or np.shape(inits[0]) != ():
        return None
    val = np.asarray(inits[0])
    dtype = (dtypes.python_scalar_dtype(inits[0]) if dtypes.is_python_scalar(inits[0])
             else dtypes.canonicalize(val.dtype))
    for name, p, identity in (("add", reduce_window_sum_p, 0),
                              ("max", reduce_window_max_p, min_value(dtype)),
                              ("min", reduce_window_min_p, max_value(dtype))):
        if computation is getattr(_ew, name):
            return p if val == identity else None
    return None


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """`lax.reduce_window`: reduce each window of `operand` (an array or a pytree of arrays
    of one shape) from `init_value` (scalars, the same structure) with `computation`, a
    function of two such pytrees. `lax.add` from 0 and `lax.max` / `lax.min` from their
    identities are the sum / max / min pooling primitives; anything else is the general
    `reduce_window_p`."""
    flat_ops, op_tree = tree_util.tree_flatten(operand)
    flat_init, init_tree = tree_util.tree_flatten(init_value)
    if op_tree != init_tree:
        raise ArgumentValueError("Operands must have the same tree structure as init_values: "
                                 f"{op_tree} vs. {init_tree}")
    if not flat_ops:
        raise ArgumentValueError("reduce_window must have at least one operand.")
    avals = [tangent_aval(x) for x in flat_ops]
    nd = len(window_dimensions)
    window_dimensions = tuple(int(d) for d in window_dimensions)
    window_strides = (1,) * nd if window_strides is None else tuple(int(s) for s in window_strides)
    base_dilation = (1,) * nd if base_dilation is None else tuple(int(d) for d in base_dilation)
    window_dilation = (1,) * nd if window_dilation is None else \
        tuple(int(d) for d in window_dilation)
    if isinstance(padding, str):
        eff = [_dilate(w, d) for w, d in zip(window_dimensions, window_dilation)]
        padding = padtype_to_pads(avals[0].shape, eff, window_strides, padding)
    w = dict(window_dimensions=window_dimensions, window_strides=window_strides,
             padding=tuple((int(lo), int(hi)) for lo, hi in padding),
             base_dilation=base_dilation, window_dilation=window_dilation)
    monoid = _monoid(computation, flat_init)
    if monoid is not None:
        return tree_util.tree_unflatten(op_tree, [bind(monoid, flat_ops[0], **w)])
    # a Python scalar takes the operand's dtype, as JAX's weak-typed initial value does
    inits = [np.asarray(i, a.dtype)[()] if isinstance(i, (int, float, complex, bool)) else i
             for i, a in zip(flat_init, avals)]
    jaxpr, consts, out_tree = _scalar_jaxpr(
        computation, init_tree, [ShapedArray((), a.dtype) for a in avals], "reduce_window")
    if out_tree != op_tree:
        raise ArgumentValueError("reduce_window output must have the same tree structure as "
                                 f"the operands {op_tree} vs. {out_tree}")
    outs = bind(reduce_window_p, *flat_ops, *inits, jaxpr=jaxpr, consts=consts, **w)
    return tree_util.tree_unflatten(op_tree, outs)
