"""Collectives that move data between chosen members of a named axis:
`pbroadcast` (one member's value to all), `psend` / `precv` (one-sided send and
receive along a permutation, ordered by tokens) and `ragged_all_to_all` (an
`all_to_all` of variable-sized slices), with every rule and their `lax` wrappers.
JAX's names, params and errors (jax 0.10.2's `jax._src.lax.parallel`).

What each backend runs, as under JAX:
- `pbroadcast` lowers to `stablehlo.collective_broadcast` (replica groups with the
  source member first) on GPU and TPU. XLA's CPU backend has no collective-broadcast
  (JAX registers no CPU lowering and raises NotImplementedError there); astjax lowers
  it on CPU to what it means -- an `all_gather` over the group and the source's slice
  -- so multi-device CPU programs run.
- `psend` / `precv` lower to `stablehlo.send` / `stablehlo.recv` on GPU only, inside
  `shard_map`; elsewhere their lowering raises JAX's NotImplementedError, located.
- `ragged_all_to_all` lowers to XLA's `ragged_all_to_all` custom call; XLA's CPU
  backend cannot compile it, so on CPU the lowering raises what JAX raises when XLA
  refuses it (a JaxRuntimeError, UNIMPLEMENTED), located at the call.

Under `vmap(..., axis_name=)` over its own axis, `pbroadcast` is the source lane's
value on every lane and `ragged_all_to_all` is the exchange among the lanes, computed
with gathers (JAX raises NotImplementedError for it there; this is also how astjax
checks its values and derivatives on CPU); `psend`/`precv` raise JAX's
NotImplementedError. Over another axis every one is re-bound with the batch
axis carried (`ragged_all_to_all` folds the batch into its slices, as JAX does).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, tree_util
from .. import sharding_impls as shd
from ..core import ShapedArray, abstract_token, bind
from ..errors import (ArgumentValueError, AxisNameError, BackendUnimplementedError,
                      NotImplementedInAstjaxError,
                      caller_location)
from .base import (deflinear, instantiate, is_zero, lax_ops, lowering_from, mark_unsupported,
                   matchaxis, register, tangent_aval, zeros_like_aval)
from .gather import GatherDimensionNumbers, GatherScatterMode, gather_p
from .collectives import (_check, _groups_text, _index_groups, _index_in_group, _leaf,
                          _manual, _names, _rebind, all_gather_p, all_to_all, psum_p)
from .ffi_call import staged_token

__all__ = ["pbroadcast_p", "psend_p", "precv_p", "ragged_all_to_all_p", "P2P_COLLECTIVES",
           "pbroadcast", "psend", "precv", "ragged_all_to_all"]


def _member_groups(names):
    """The groups of members a collective over `names` runs in, as device numbers:
    partitions of the shard_map mesh, or the replicas of the pmap."""
    mesh = _manual(names)
    if mesh is not None:
        return [list(g) for g in shd.manual_groups(mesh, names, shd.current_assignment())]
    bound = {f.name: f.size for f in core.axis_frames("pmap")}
    missing = [n for n in names if n not in bound]
    if missing or len(names) != 1:
        raise AxisNameError(f"collective over axis {missing[0] if missing else names!r}, "
                            "which is not one pmap axis of this program")
    return [list(range(bound[names[0]]))]


def _channel(ctx):
    """A fresh channel handle (a partitioned program's collectives each take one)."""
    n = getattr(ctx.mb, "channels", 0) + 1
    ctx.mb.channels = n
    return n


def _check_perm(perm, n, what):
    """`perm` as pairs of ints after JAX's check that sources and destinations are
    unique (a located ValueError)."""
    perm = tuple((int(s), int(t)) for s, t in perm)
    srcs = [s % n for s, _ in perm]
    dsts = [t % n for _, t in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ArgumentValueError(f"{what} sources and destinations must be unique, got "
                                 f"{perm}.", loc=caller_location())
    return perm

# --------------------------------------------------------------------- pbroadcast
pbroadcast_p = core.new_primitive("pbroadcast")


def _pbroadcast_cpu(x, *, axis_name, source):
    # all members' values stacked (group order), then the source's: exact for any dtype
    lax = lax_ops()
    k = len(_member_groups(_names(axis_name))[0])
    stacked = bind(all_gather_p, x, all_gather_dimension=0, axis_name=axis_name,
                   axis_index_groups=None, axis_size=k, tiled=False)
    return lax.index_in_dim(stacked, source, 0, keepdims=False)


def _pbroadcast_lowering(ctx, x, *, axis_name, source):
    names = _names(axis_name)
    if ctx.platform == "cpu":   # XLA:CPU has no collective-broadcast (see the docstring)
        return lowering_from(_pbroadcast_cpu)(ctx, x, axis_name=axis_name, source=source)
    groups = [[g[source]] + g[:source] + g[source + 1:] for g in _member_groups(names)]
    attrs = {"replica_groups": _groups_text(groups)}
    if _manual(names) is not None:
        attrs["channel_handle"] = f"#stablehlo.channel_handle<handle = {_channel(ctx)}, type = 1>"
    return ctx.op1("stablehlo.collective_broadcast", [x], attrs=attrs)


def _pbroadcast_transpose(ct, x, *, axis_name, source):
    """Every member's cotangent flows to the source: the sum there, zeros elsewhere."""
    if is_zero(ct):
        return [None]
    lax = lax_ops()
    names = _names(axis_name)
    total = bind(psum_p, ct, axes=names, axis_index_groups=None)
    me = _index_in_group(names, [core.axis_size(n) for n in names], None)
    a = core.get_aval(ct)
    here = lax.broadcast_in_dim(lax.eq(me, np.int32(source)), a.shape, ())
    return [lax.select(here, total, lax.full(a.shape, np.zeros((), a.dtype)[()], a.dtype))]


def _pbroadcast_batch(args, dims, *, axis_name, source):
    frame = core.axis_frame()
    names = _names(axis_name)
    if frame.name not in names:
        return _rebind(pbroadcast_p, args, dims, dict(axis_name=axis_name, source=source))
    if len(names) > 1:
        raise NotImplementedInAstjaxError("pbroadcast batcher only supports a single axis")
    x, d = args[0], dims[0]
    if d is None:
        return x, None
    lax = lax_ops()
    row = lax.index_in_dim(x, source, d, keepdims=True)
    a = core.get_aval(x)
    return lax.broadcast_in_dim(lax.squeeze(row, (d,)), a.shape,
                                tuple(i for i in range(a.ndim) if i != d)), d


register(pbroadcast_p, abstract_eval=lambda x, *, axis_name, source: x,
         lowering=_pbroadcast_lowering, batch=_pbroadcast_batch)
pbroadcast_p.always_batch = True
deflinear(pbroadcast_p, _pbroadcast_transpose)


def pbroadcast(x, axis_name, source):
    """`lax.pbroadcast`: every member of the axis `axis_name` gets the value `x` has at
    index `source` of that axis (leaf by leaf); XLA's CollectiveBroadcast."""
    sizes = _check(axis_name)
    n = int(np.prod(sizes))
    if not 0 <= int(source) < n:
        raise ArgumentValueError(f"pbroadcast: source {source} is not an index of the axis "
                                 f"{axis_name!r} of size {n}", loc=caller_location())
    if isinstance(axis_name, list):     # (a param must be hashable)
        axis_name = tuple(axis_name)
    return tree_util.tree_map(
        lambda v: bind(pbroadcast_p, _leaf(v), axis_name=axis_name, source=int(source)), x)

# ------------------------------------------------------------------ psend, precv
psend_p = core.new_primitive("psend")
precv_p = core.new_primitive("precv")


def _send_recv_pairs(ctx, names, perm, what):
    """(source, target) device pairs of `perm` within every group, and the channel
    attribute; JAX lowers psend/precv on GPU inside shard_map only."""
    if ctx.platform not in ("cuda", "rocm", "gpu"):
        raise NotImplementedInAstjaxError(f"{what} is currently only implemented on GPU")
    if _manual(names) is None:
        raise NotImplementedInAstjaxError(f"{what} currently only supports manual sharding")
    groups = _member_groups(names)
    k = len(groups[0])
    _check_perm(perm, k, what)
    pairs = [(sorted(g)[s % k], sorted(g)[t % k]) for g in groups for s, t in perm]
    text = ", ".join(f"[{s}, {t}]" for s, t in pairs)
    # one channel for every send and receive, as JAX numbers them: XLA pairs a Send
    # with the Recv of the same channel
    return {"source_target_pairs": f"dense<[{text}]> : tensor<{len(pairs)}x2xi64>",
            "channel_handle": "#stablehlo.channel_handle<handle = 1, type = 1>"}


def _psend_lowering(ctx, x, *, axis_name, perm):
    attrs = _send_recv_pairs(ctx, _names(axis_name), perm, "psend")
    token = ctx.op1("stablehlo.create_token", [], abstract_token)
    return ctx.op1("stablehlo.send", [x, token], abstract_token, attrs=attrs)


def _precv_lowering(ctx, token, *, out_shape, axis_name, perm):
    attrs = _send_recv_pairs(ctx, _names(axis_name), perm, "precv")
    return ctx.op("stablehlo.recv", [token], [out_shape, abstract_token], attrs=attrs)[0]


def _one_sided_batch(p):
    def batch(args, dims, **params):
        if core.axis_frame().name in _names(params["axis_name"]):
            raise NotImplementedInAstjaxError(
                f"{p.name} under vmap over its own axis {core.axis_frame().name!r}: a "
                "one-sided transfer has no batched meaning (JAX fails here too)")
        if p is psend_p and dims[0] is not None:
            raise NotImplementedInAstjaxError(
                "psend of a value batched over another axis: its token cannot carry the "
                "batch (JAX fails here too)")
        return bind(p, *args, **params), None
    return batch


def _precv_ae(token, *, out_shape, axis_name, perm):
    if not isinstance(token, core.TokenAval):
        raise ArgumentValueError(f"precv takes a token (from psend or lax.create_token()), "
                                 f"got {token.str_short(True)}")
    return out_shape


register(psend_p, abstract_eval=lambda x, *, axis_name, perm: abstract_token,
         lowering=_psend_lowering, batch=_one_sided_batch(psend_p))
register(precv_p, abstract_eval=_precv_ae, lowering=_precv_lowering,
         batch=_one_sided_batch(precv_p))
for _p in (psend_p, precv_p):
    _p.always_batch = True
    mark_unsupported(_p, "jvp", f"JAX has no differentiation rule for '{_p.name}' (a "
                     "one-sided transfer ordered by tokens)")


def psend(x, axis_name, perm):
    """`lax.psend`: send `x` from member `s` to member `t` of the axis for each `(s, t)`
    of `perm` (XLA's Send, GPU only, as in JAX); returns the token a matching `precv`
    (or `lax.optimization_barrier`) orders itself after."""
    names = _names(axis_name)
    n = int(np.prod(_check(names)))
    perm = _check_perm(perm, n, "psend")
    return tree_util.tree_map(
        lambda v: bind(psend_p, _leaf(v), axis_name=names, perm=perm), x)


def precv(token, out_shape, axis_name, perm):
    """`lax.precv`: receive a value of `out_shape` (a ShapeDtypeStruct) sent along
    `perm` after `token` (from a matching `psend` or `lax.create_token()`); XLA's Recv,
    GPU only, as in JAX."""
    names = _names(axis_name)
    n = int(np.prod(_check(names)))
    perm = _check_perm(perm, n, "precv")
    return bind(precv_p, staged_token(token),
                out_shape=ShapedArray(tuple(out_shape.shape), dtypes.dtype(out_shape.dtype)),
                axis_name=names, perm=perm)

# -------------------------------------------------------------- ragged_all_to_all
ragged_all_to_all_p = core.new_primitive("ragged_all_to_all")
_RAGGED_INDEX = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")


def _ragged_ae(operand, output, *index, axis_name, axis_index_groups):
    for what, a in zip(_RAGGED_INDEX, index):
        if not dtypes.issubdtype(a.dtype, np.integer):
            raise ArgumentValueError(f"ragged_all_to_all {what} must be integer type.")
    for what, a in zip(_RAGGED_INDEX, index):
        if a.ndim != 1 or a.shape[0] < 1:
            raise ArgumentValueError(
                f"ragged_all_to_all {what} must be rank 1 with positive dimension size, but "
                f"got shape {a.shape}")
    return output.update(weak_type=False)


def _ragged_lowering(ctx, *args, axis_name, axis_index_groups):
    if ctx.platform == "cpu":
        # JAX lowers it and XLA:CPU refuses to compile it; refused here, before XLA
        # (whose replicated CPU compile of it crashes the process instead of failing)
        raise BackendUnimplementedError(
            "UNIMPLEMENTED: HLO opcode `ragged-all-to-all` is not supported by XLA:CPU "
            "ThunkEmitter")
    names = _names(axis_name)
    groups = _member_groups(names)
    if axis_index_groups is not None:
        groups = [[g[i] for i in ig] for g in groups for ig in axis_index_groups]
    if len({len(g) for g in groups}) != 1:
        raise ArgumentValueError("Replica groups must be equally sized")
    config = f"replica_groups = {_groups_text(groups)}"
    if _manual(names) is not None:
        config = f"channel_id = {_channel(ctx)} : i64, " + config
    return ctx.op1("stablehlo.custom_call", list(args), attrs={
        "call_target_name": '"ragged_all_to_all"', "api_version": "4 : i32",
        "backend_config": "{" + config + "}"})


def _ragged_jvp(primals, tangents, **params):
    out = bind(ragged_all_to_all_p, *primals, **params)
    d_operand, d_output = tangents[:2]
    if is_zero(d_operand) and is_zero(d_output):
        return out, core.Zero(tangent_aval(out))
    return out, bind(ragged_all_to_all_p, instantiate(d_operand), instantiate(d_output),
                     *primals[2:], **params)


def _ragged_transpose(ct, operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups):
    """The cotangent of each received slice goes back to its sender's operand; the
    output's cotangent is `ct` where nothing was received."""
    if is_zero(ct):
        return [None] * 6
    lax = lax_ops()
    a = core.get_aval(ct)
    names = _names(axis_name)
    if len(names) > 1:      # (the exchange of offsets below is one axis's all_to_all)
        raise NotImplementedInAstjaxError(
            "the transpose of ragged_all_to_all over several axes is not implemented in "
            f"astjax (axes {names})", hint="differentiate a ragged_all_to_all over one axis")
    # where each member's slices sit on their receivers / came from on their senders
    here = all_to_all(output_offsets, names, 0, 0, axis_index_groups=axis_index_groups,
                      tiled=True)
    there = all_to_all(input_offsets, names, 0, 0, axis_index_groups=axis_index_groups,
                       tiled=True)
    operand_t = None
    if isinstance(operand, core.UndefinedPrimal):
        operand_t = bind(ragged_all_to_all_p, ct, zeros_like_aval(operand.aval), here,
                         recv_sizes, there, send_sizes, axis_name=axis_name,
                         axis_index_groups=axis_index_groups)
    output_t = None
    if isinstance(output, core.UndefinedPrimal):
        k = core.get_aval(here).shape[0]
        idx = core.get_aval(here).dtype
        pos = lax.broadcast_in_dim(lax.iota(idx, a.shape[0]), (a.shape[0], k), (0,))
        lo = lax.broadcast_in_dim(here, (a.shape[0], k), (1,))
        hi = lax.broadcast_in_dim(lax.add(here, lax.convert_element_type(recv_sizes, idx)),
                                  (a.shape[0], k), (1,))
        inside = lax.bitwise_and(lax.ge(pos, lo), lax.lt(pos, hi))
        written = lax.reduce_or(inside, (1,))
        written = lax.broadcast_in_dim(written, a.shape, (0,))
        output_t = lax.select(written, zeros_like_aval(a), ct)
    return [operand_t, output_t, None, None, None, None]


def _ragged_lanes(args, n):
    """The exchange among the `n` lanes of a vmap over the collective's own axis, all
    batched at axis 0: lane i's row m comes from the slice (of sender j, number s)
    whose window [output_offsets, + recv_sizes) on i covers m, else from `output`."""
    lax = lax_ops()
    operand, output, ins, sends, outs, recvs = (matchaxis(x, d, 0, n) for x, d in args)
    oa, ua = core.get_aval(operand), core.get_aval(output)
    k = core.get_aval(ins).shape[1]
    if k % n:
        raise ArgumentValueError(f"ragged_all_to_all: {k} slices do not divide among the "
                                 f"{n} members of the axis")
    spd, N, M, rest = k // n, oa.shape[1], ua.shape[1], ua.shape[2:]
    idx = core.get_aval(ins).dtype

    def to_receiver(a):
        # a[j, i*spd + s] (sender-side) -> [i, j*spd + s] (receiver-side)
        a = lax.reshape(lax.convert_element_type(a, idx), (n, n, spd))
        return lax.reshape(lax.transpose(a, (1, 0, 2)), (n, k))
    lo, start = to_receiver(outs), to_receiver(ins)
    hi = lax.add(lo, lax.convert_element_type(recvs, idx))
    pos = lax.broadcast_in_dim(lax.iota(idx, M), (n, M, k), (1,))
    window = lax.bitwise_and(lax.ge(pos, lax.broadcast_in_dim(lo, (n, M, k), (0, 2))),
                             lax.lt(pos, lax.broadcast_in_dim(hi, (n, M, k), (0, 2))))
    hit = lax.reduce_or(window, (2,))
    which = lax.argmax(lax.convert_element_type(window, np.int32), 2, idx)   # (n, M)

    def pick(a):    # a[i, which[i, m]]
        return lax.reshape(bind(gather_p, a, lax.reshape(which, (n, M, 1)),
                                dimension_numbers=GatherDimensionNumbers(
                                    offset_dims=(), collapsed_slice_dims=(1,),
                                    start_index_map=(1,), operand_batching_dims=(0,),
                                    start_indices_batching_dims=(0,)),
                                slice_sizes=(1, 1), indices_are_sorted=False,
                                unique_indices=False, mode=GatherScatterMode.CLIP,
                                fill_value=None), (n, M))
    sender = lax.div(which, np.asarray(spd, idx)[()])
    row = lax.add(lax.mul(sender, np.asarray(N, idx)[()]),
                  lax.add(pick(start), lax.sub(lax.broadcast_in_dim(lax.iota(idx, M), (n, M),
                                                                    (1,)), pick(lo))))
    flat = lax.reshape(operand, (n * N,) + oa.shape[2:])
    got = bind(gather_p, flat, lax.reshape(row, (n * M, 1)),
               dimension_numbers=GatherDimensionNumbers(
                   offset_dims=tuple(range(1, 1 + len(rest))), collapsed_slice_dims=(0,),
                   start_index_map=(0,)),
               slice_sizes=(1,) + oa.shape[2:], indices_are_sorted=False,
               unique_indices=False, mode=GatherScatterMode.CLIP, fill_value=None)
    got = lax.convert_element_type(lax.reshape(got, (n, M) + rest), ua.dtype)
    mask = lax.broadcast_in_dim(hit, (n, M) + rest, (0, 1))
    return lax.select(mask, got, output), 0


def _ragged_batch(args, dims, *, axis_name, axis_index_groups):
    frame = core.axis_frame()
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups)
    if frame.name in _names(axis_name):
        if len(_names(axis_name)) > 1 or axis_index_groups is not None:
            raise NotImplementedInAstjaxError(
                "ragged_all_to_all under vmap over several axes or with axis_index_groups: "
                "Please open a feature request!")
        return _ragged_lanes(list(zip(args, dims)), frame.size)
    if all(d is None for d in dims):
        return bind(ragged_all_to_all_p, *args, **params), None
    if axis_index_groups:
        raise NotImplementedInAstjaxError(
            "ragged_all_to_all with axis_index_groups under vmap: Please open a feature "
            "request!")
    lax = lax_ops()
    n = frame.size
    operand, output = (matchaxis(x, d, 0, n) for x, d in zip(args[:2], dims[:2]))
    N, M = core.get_aval(operand).shape[1], core.get_aval(output).shape[1]
    # the batch folds into the slices: lane b's slice k becomes slice k*n + b, which
    # still goes to the same member, reading and writing lane b's rows of the merge
    index = [matchaxis(x, d, 1, n) for x, d in zip(args[2:], dims[2:])]
    for i, rows in ((0, N), (2, M)):
        a = core.get_aval(index[i])
        shift = lax.mul(lax.iota(a.dtype, n), np.asarray(rows, a.dtype)[()])
        index[i] = lax.add(index[i], lax.broadcast_in_dim(shift, a.shape, (1,)))

    def merge(x):
        s = core.get_aval(x).shape
        return lax.reshape(x, (s[0] * s[1],) + s[2:])
    out = bind(ragged_all_to_all_p, merge(operand), merge(output), *map(merge, index),
               **params)
    return lax.reshape(out, (n, M) + core.get_aval(output).shape[2:]), 0


register(ragged_all_to_all_p, abstract_eval=_ragged_ae, lowering=_ragged_lowering,
         jvp=_ragged_jvp, transpose=_ragged_transpose, batch=_ragged_batch)
ragged_all_to_all_p.always_batch = True


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups=None):
    """`lax.ragged_all_to_all`: slice `i` of `operand` (rows `input_offsets[i]` on,
    `send_sizes[i]` of them) goes to member `i // (len(input_offsets) // axis size)`,
    which writes it into its copy of `output` at the offset `output_offsets[i]` names;
    each member returns its `output` with what it received written in."""
    _check(axis_name)
    names = _names(axis_name)
    return bind(ragged_all_to_all_p, *map(_leaf, (operand, output, input_offsets, send_sizes,
                                                  output_offsets, recv_sizes)),
                axis_name=names, axis_index_groups=_index_groups(axis_index_groups))


P2P_COLLECTIVES = (pbroadcast_p, psend_p, precv_p, ragged_all_to_all_p)
for _p in P2P_COLLECTIVES:
    mark_unsupported(_p, "impl", "a collective only means something under a mapped axis "
                     "(vmap/pmap/shard_map); there is no single-array NumPy reference")
