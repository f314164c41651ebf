"""Convolution: `conv_general_dilated`, XLA's one convolution, and the `lax.conv*`
wrappers (`conv`, `conv_with_general_padding`, `conv_transpose`) over it.

Its block holds the declaration, a NumPy reference (impl), the abstract eval with
XLA's checks, the lowering, JVP (it is bilinear), the transposes with respect to
each operand (themselves convolutions), the batching rule (a mapped axis is folded
into the batch, feature or output-feature dimension) and the printed source.

Layouts are `ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)`: for the operand,
(batch, feature, spatial...) dimension indices; for the kernel, (out feature, in
feature, spatial...); for the result, (batch, feature, spatial...). Strings such as
`('NHWC', 'HWIO', 'NHWC')` say the same.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError
from ..pyast import lax_call
from .base import bilinear, lower_inline, register
from .base import tangent_aval as _aval
from ..precision_config import canonicalize_precision, precision_config_attribute, source_value
from .arithmetic import add, sub
from .elementwise import complex as _complex, imag, real
from .concat_pad import rev
from .structural import reshape, transpose

__all__ = ["conv_general_dilated_p", "ConvDimensionNumbers", "conv_general_dilated", "conv",
           "conv_with_general_padding", "conv_transpose", "conv_dimension_numbers",
           "padtype_to_pads", "conv_general_shape_tuple", "conv_transpose_shape_tuple"]


class ConvDimensionNumbers(NamedTuple):
    """Where the batch/feature/spatial dimensions are: see the module docstring."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """None (NC..., OI..., NC...), three layout strings, or ConvDimensionNumbers ->
    ConvDimensionNumbers of index tuples."""
    nd = len(lhs_shape)
    if len(rhs_shape) != nd:
        raise ShapeError(f"conv_general_dilated: operand and kernel must have the same rank, "
                         f"got {len(lhs_shape)} and {len(rhs_shape)}")
    if dimension_numbers is None:
        spec = tuple(range(nd))
        return ConvDimensionNumbers(spec, spec, spec)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(int(i) for i in s) for s in dimension_numbers))
    if len(dimension_numbers) != 3:
        raise ArgumentTypeError(f"dimension_numbers must be None, ConvDimensionNumbers or three "
                                f"layout strings, got {dimension_numbers!r}")
    lhs_s, rhs_s, out_s = dimension_numbers
    if not all(isinstance(s, str) for s in (lhs_s, rhs_s, out_s)):
        return ConvDimensionNumbers(*(tuple(int(i) for i in s) for s in dimension_numbers))
    for s, kind in ((lhs_s, "operand"), (rhs_s, "kernel"), (out_s, "output")):
        if len(s) != nd or len(set(s)) != nd:
            raise ArgumentTypeError(f"conv layout {s!r} for the {kind} must name {nd} distinct "
                                    "dimensions")
    spatial = [c for c in rhs_s if c not in "OI"]
    if sorted(spatial) != sorted(c for c in lhs_s if c not in "NC") or \
            sorted(spatial) != sorted(c for c in out_s if c not in "NC"):
        raise ArgumentTypeError(f"conv layouts {dimension_numbers!r} name different spatial "
                                "dimensions")
    lhs = (lhs_s.index("N"), lhs_s.index("C")) + tuple(lhs_s.index(c) for c in spatial)
    rhs = (rhs_s.index("O"), rhs_s.index("I")) + tuple(rhs_s.index(c) for c in spatial)
    out = (out_s.index("N"), out_s.index("C")) + tuple(out_s.index(c) for c in spatial)
    return ConvDimensionNumbers(lhs, rhs, out)


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """'VALID' / 'SAME' / 'SAME_LOWER' -> explicit (low, high) pairs per spatial dim."""
    p = padding.upper() if isinstance(padding, str) else padding
    if p == "VALID":
        return [(0, 0)] * len(in_shape)
    if p in ("SAME", "SAME_LOWER"):
        pads = []
        for n, k, s in zip(in_shape, window_shape, window_strides):
            out = -(-n // s)
            total = max(0, (out - 1) * s + k - n)
            lo = total // 2 if p == "SAME" else total - total // 2
            pads.append((lo, total - lo))
        return pads
    raise ArgumentValueError(f"unknown padding {padding!r}: 'SAME', 'SAME_LOWER', 'VALID' or "
                             "(low, high) pairs")


def _dilate(n, d):
    return 0 if n == 0 else (n - 1) * d + 1


def _out_spatial(in_shape, k_shape, strides, padding, lhs_dil, rhs_dil):
    out = []
    for n, k, s, (lo, hi), ld, rd in zip(in_shape, k_shape, strides, padding, lhs_dil, rhs_dil):
        size = _dilate(n, ld) + lo + hi - _dilate(k, rd)
        out.append(max(0, size // s + 1) if size >= 0 else 0)
    return out


def _out_layout(out_spec, batch, features, spatial):
    """The output shape: `batch`, `features` and `spatial` sizes placed per `out_spec`."""
    shape = [0] * len(out_spec)
    shape[out_spec[0]], shape[out_spec[1]] = batch, features
    for d, n in zip(out_spec[2:], spatial):
        shape[d] = n
    return tuple(shape)


def _conv_ae(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
             dimension_numbers, feature_group_count, batch_group_count, precision=None,
             preferred_element_type=None, out_sharding=None):
    dn = dimension_numbers
    if lhs.dtype != rhs.dtype:
        raise DTypeError(f"conv_general_dilated needs operands of one dtype, got "
                         f"{lhs.str_short(True)} and {rhs.str_short(True)}")
    n, c = lhs.shape[dn.lhs_spec[0]], lhs.shape[dn.lhs_spec[1]]
    o, i = rhs.shape[dn.rhs_spec[0]], rhs.shape[dn.rhs_spec[1]]
    g, b = feature_group_count, batch_group_count
    if c != i * g:
        raise ShapeError(f"conv_general_dilated: the operand has {c} features, which must be "
                         f"the kernel's input features ({i}) times feature_group_count ({g})")
    if o % g or o % b:
        raise ShapeError(f"conv_general_dilated: the kernel's {o} output features must be a "
                         f"multiple of feature_group_count ({g}) and batch_group_count ({b})")
    if n % b:
        raise ShapeError(f"conv_general_dilated: the batch size {n} must be a multiple of "
                         f"batch_group_count ({b})")
    if g > 1 and b > 1:
        raise ShapeError("conv_general_dilated: at most one of feature_group_count and "
                         "batch_group_count may exceed 1")
    in_sp = [lhs.shape[d] for d in dn.lhs_spec[2:]]
    k_sp = [rhs.shape[d] for d in dn.rhs_spec[2:]]
    sp = _out_spatial(in_sp, k_sp, window_strides, padding, lhs_dilation, rhs_dilation)
    shape = _out_layout(dn.out_spec, n // b, o, sp)
    out_dtype = preferred_element_type or lhs.dtype
    # (JAX's standard weak-type rule: weak when both operands are)
    return ShapedArray(tuple(shape), out_dtype, lhs.weak_type and rhs.weak_type)


def _conv_reference(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                    dimension_numbers, feature_group_count, batch_group_count, **_):
    """The NumPy reference: canonical layouts, zero-dilate, pad (or crop), windows."""
    dn = dimension_numbers
    x = np.transpose(np.asarray(lhs), dn.lhs_spec).astype(np.float64)
    w = np.transpose(np.asarray(rhs), dn.rhs_spec).astype(np.float64)
    nsp = x.ndim - 2
    if any(d > 1 for d in lhs_dilation):
        shape = x.shape[:2] + tuple(_dilate(s, d) for s, d in zip(x.shape[2:], lhs_dilation))
        xd = np.zeros(shape)
        xd[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dilation)] = x
        x = xd
    if any(d > 1 for d in rhs_dilation):
        shape = w.shape[:2] + tuple(_dilate(s, d) for s, d in zip(w.shape[2:], rhs_dilation))
        wd = np.zeros(shape)
        wd[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in rhs_dilation)] = w
        w = wd
    x = np.pad(x, [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding])
    x = x[(slice(None), slice(None)) + tuple(
        slice(max(-lo, 0), x.shape[2 + i] - max(-hi, 0)) for i, (lo, hi) in enumerate(padding))]
    k = w.shape[2:]
    if any(xs < ks for xs, ks in zip(x.shape[2:], k)):
        win = np.zeros(x.shape[:2] + tuple(0 for _ in k) + k)
    else:
        win = np.lib.stride_tricks.sliding_window_view(x, k, axis=tuple(range(2, 2 + nsp)))
        win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in window_strides)]
    g, b = feature_group_count, batch_group_count
    n, c = x.shape[:2]
    o = w.shape[0]
    letters = "abcdefghij"[:nsp]
    kl = "klmnopqrst"[:nsp]
    if b > 1:
        wins = win.reshape((b, n // b) + win.shape[1:])
        ws = w.reshape((b, o // b) + w.shape[1:])
        out = np.einsum(f"gNC{letters}{kl},gOC{kl}->NgO{letters}", wins, ws)
        out = out.reshape((n // b, o) + out.shape[3:])
    else:
        wins = win.reshape((n, g, c // g) + win.shape[2:])
        ws = w.reshape((g, o // g) + w.shape[1:])
        out = np.einsum(f"NgC{letters}{kl},gOC{kl}->NgO{letters}", wins, ws)
        out = out.reshape((n, o) + out.shape[3:])
    return np.transpose(out, np.argsort(dn.out_spec)).astype(np.asarray(lhs).dtype)


def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision=None,
                   preferred_element_type=None, out_sharding=None):
    dn = dimension_numbers
    nsp = len(dn.lhs_spec) - 2

    def layout(spec, first, second):
        labels = [""] * len(spec)
        labels[spec[0]], labels[spec[1]] = first, second
        for j, d in enumerate(spec[2:]):
            labels[d] = str(j)
        return "[" + ", ".join(labels) + "]"
    dims = (f"#stablehlo.conv<{layout(dn.lhs_spec, 'b', 'f')}x{layout(dn.rhs_spec, 'o', 'i')}"
            f"->{layout(dn.out_spec, 'b', 'f')}>")
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    attrs = {"batch_group_count": f"{batch_group_count} : i64",
             "dimension_numbers": dims,
             "feature_group_count": f"{feature_group_count} : i64",
             "lhs_dilation": ctx.i64(lhs_dilation),
             "padding": f"dense<[{pads}]> : tensor<{nsp}x2xi64>" if nsp else
                        "dense<> : tensor<0x2xi64>",
             "rhs_dilation": ctx.i64(rhs_dilation),
             "window_reversal": ctx.bools([False] * nsp),   # (JAX's: printed `reverse`)
             "window_strides": ctx.i64(window_strides),
             "precision_config": precision_config_attribute(precision)}
    a = ctx.avals_in[0]
    if dtypes.issubdtype(a.dtype, np.complexfloating) and ctx.platform in _REAL_CONV_PLATFORMS:
        return _complex_conv_lowering(ctx, lhs, rhs, window_strides=window_strides,
                                      padding=padding, lhs_dilation=lhs_dilation,
                                      rhs_dilation=rhs_dilation, dimension_numbers=dn,
                                      feature_group_count=feature_group_count,
                                      batch_group_count=batch_group_count, precision=precision,
                                      preferred_element_type=preferred_element_type)
    if a.dtype != ctx.avals_out[0].dtype:
        lhs = ctx.op1("stablehlo.convert", [lhs], a.update(dtype=ctx.avals_out[0].dtype))
        rhs = ctx.op1("stablehlo.convert", [rhs],
                      ctx.avals_in[1].update(dtype=ctx.avals_out[0].dtype))
    return ctx.op1("stablehlo.convolution", [lhs, rhs], attrs=attrs)


# XLA's CPU and GPU backends convolve complex values slowly or not at all: as JAX, they
# get three real convolutions (Gauss's product, 3 multiplies for 4) -- and JAX's roundings
_REAL_CONV_PLATFORMS = ("cpu", "cuda", "rocm", "gpu")


def _complex_conv_lowering(ctx, lhs, rhs, *, preferred_element_type, **params):
    pet = None if preferred_element_type is None else \
        np.finfo(preferred_element_type).dtype

    def gauss(x, y):
        def conv(u, v):
            return bind(conv_general_dilated_p, u, v, preferred_element_type=pet, **params)
        xr, xi, yr, yi = real(x), imag(x), real(y), imag(y)
        k1 = conv(add(xr, xi), yr)
        k2 = conv(xr, sub(yi, yr))
        k3 = conv(xi, add(yr, yi))
        return [_complex(sub(k1, k3), add(k1, k2))]
    return lower_inline(ctx, gauss, ctx.avals_in, [lhs, rhs])[0]


# ---- derivatives ----------------------------------------------------------------------
# The transposes are convolutions too (the kernel correlated with the cotangent, the
# operand with the cotangent); their paddings come from the requirement that the
# shapes of the original convolution come back.


def _split_axis(x, axis, groups):
    """Dimension `axis` of size G*n -> dimensions (G, n) at `axis`, `axis + 1`."""
    shape = list(_aval(x).shape)
    shape[axis:axis + 1] = [groups, shape[axis] // groups]
    return reshape(x, tuple(shape))


def _merge_axes(x, src, dst):
    """Move dimension `src` just before `dst` and merge the two (src major): JAX's one
    reshape, the move its `dimensions`."""
    a = _aval(x)
    perm = [d for d in range(a.ndim) if d != src]
    pos = perm.index(dst)
    perm.insert(pos, src)
    shape = [a.shape[d] for d in perm]
    shape[pos:pos + 2] = [shape[pos] * shape[pos + 1]]
    return reshape(x, tuple(shape), tuple(perm))


def _spatial(dn, lhs_shape, rhs_shape, out_shape, window_strides, lhs_dilation,
             rhs_dilation, padding):
    """Per spatial dimension: (in, kernel, out, stride, (lo, hi), lhs dil, rhs dil)."""
    return zip([lhs_shape[d] for d in dn.lhs_spec[2:]], [rhs_shape[d] for d in dn.rhs_spec[2:]],
               [out_shape[d] for d in dn.out_spec[2:]], window_strides, padding, lhs_dilation,
               rhs_dilation)


def _transpose_lhs(ct, lhs_aval, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision=None,
                   preferred_element_type=None, out_sharding=None):
    dn = dimension_numbers
    # batch groups become feature groups of the transposed convolution, whose output
    # features (B, C) are then moved back into the batch (B major)
    g = feature_group_count if batch_group_count == 1 else batch_group_count
    pads = []
    for n, k, o, s, (lo, hi), ld, rd in _spatial(dn, lhs_aval.shape, _aval(rhs).shape,
                                                 _aval(ct).shape, window_strides, lhs_dilation,
                                                 rhs_dilation, padding):
        k_eff = _dilate(k, rd)
        before = k_eff - lo - 1
        after = _dilate(n, ld) + k_eff - 1 - _dilate(o, s) - before
        pads.append((before, after))
    # swap the kernel's in/out features within each feature group
    o_dim, i_dim = dn.rhs_spec[0], dn.rhs_spec[1]
    w = rev(rhs, tuple(dn.rhs_spec[2:]))
    if g > 1:
        w = _split_axis(w, o_dim, g)
        i_adj = i_dim + (1 if i_dim > o_dim else 0)
        w = _merge_axes(w, o_dim, i_adj)
    trans_dn = ConvDimensionNumbers(dn.out_spec, (i_dim, o_dim) + tuple(dn.rhs_spec[2:]),
                                    dn.lhs_spec)
    out = conv_general_dilated(ct, w, window_strides=lhs_dilation, padding=pads,
                               lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
                               dimension_numbers=trans_dn, feature_group_count=g,
                               precision=precision, preferred_element_type=lhs_aval.dtype)
    if batch_group_count > 1:
        f, b = dn.lhs_spec[1], dn.lhs_spec[0]
        out = _split_axis(out, f, batch_group_count)
        out = _merge_axes(out, f, b + (1 if b > f else 0))
    return out


def _transpose_rhs(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision=None,
                   preferred_element_type=None, out_sharding=None):
    dn = dimension_numbers
    pads = []
    for n, k, o, s, (lo, hi), ld, rd in _spatial(dn, _aval(lhs).shape, rhs_aval.shape,
                                                 _aval(ct).shape, window_strides, lhs_dilation,
                                                 rhs_dilation, padding):
        total = _dilate(o, s) + _dilate(k, rd) - _dilate(n, ld) - 1
        pads.append((lo, total - lo))
    trans_dn = ConvDimensionNumbers(
        (dn.lhs_spec[1], dn.lhs_spec[0]) + tuple(dn.lhs_spec[2:]),
        (dn.out_spec[1], dn.out_spec[0]) + tuple(dn.out_spec[2:]),
        (dn.rhs_spec[1], dn.rhs_spec[0]) + tuple(dn.rhs_spec[2:]))
    return conv_general_dilated(lhs, ct, window_strides=rhs_dilation, padding=pads,
                                lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
                                dimension_numbers=trans_dn,
                                feature_group_count=batch_group_count,
                                batch_group_count=feature_group_count, precision=precision,
                                preferred_element_type=rhs_aval.dtype)


# ---- batching: fold the mapped axis into a dimension the convolution already has ------


def _conv_batch(args, dims, *, dimension_numbers, feature_group_count, batch_group_count,
                out_sharding=None, **params):
    lhs, rhs = args
    ld, rd = dims
    dn = dimension_numbers
    g = feature_group_count
    if batch_group_count > 1:
        raise NotImplementedError("vmap of a batch-grouped convolution")

    # dimension_numbers index the unbatched operands: that is the layout once the
    # mapped axis is merged into another dimension
    if ld is not None and rd is not None:
        size = _aval(lhs).shape[ld]
        lspec, rspec = dn.lhs_spec, dn.rhs_spec
        lhs = _move_merge(lhs, ld, lspec[1])     # (B, C) -> B*C features
        rhs = _move_merge(rhs, rd, rspec[0])     # (B, O) -> B*O output features
        new_dn = ConvDimensionNumbers(lspec, rspec, dn.out_spec)
        out = conv_general_dilated(lhs, rhs, dimension_numbers=new_dn,
                                   feature_group_count=g * size, **params)
        return _split_out(out, dn.out_spec[1], size), dn.out_spec[1]
    if ld is not None:
        size = _aval(lhs).shape[ld]
        lspec = dn.lhs_spec
        lhs = _move_merge(lhs, ld, lspec[0])     # (B, N) -> B*N batch
        new_dn = ConvDimensionNumbers(lspec, dn.rhs_spec, dn.out_spec)
        out = conv_general_dilated(lhs, rhs, dimension_numbers=new_dn, feature_group_count=g,
                                   **params)
        return _split_out(out, dn.out_spec[0], size), dn.out_spec[0]
    size = _aval(rhs).shape[rd]
    rspec = dn.rhs_spec
    o_dim, f = rspec[0], dn.out_spec[1]
    if g > 1:  # output features ordered (G, B, O/G): each group's outputs stay together
        rhs = _moveaxis(rhs, rd, 0)
        rhs = _split_axis(rhs, o_dim + 1, g)             # (B, ..., G, O/G, ...)
        rhs = _moveaxis(rhs, 0, o_dim + 1)               # (..., G, B, O/G, ...)
        shape = list(_aval(rhs).shape)
        shape[o_dim:o_dim + 3] = [shape[o_dim] * shape[o_dim + 1] * shape[o_dim + 2]]
        rhs = reshape(rhs, tuple(shape))
    else:
        rhs = _move_merge(rhs, rd, o_dim)                # (B, O) -> B*O output features
    new_dn = ConvDimensionNumbers(dn.lhs_spec, rspec, dn.out_spec)
    out = conv_general_dilated(lhs, rhs, dimension_numbers=new_dn, feature_group_count=g,
                               **params)
    if g > 1:
        out = _split_axis(out, f, g)                     # (G, B*O/G)
        out = _split_axis(out, f + 1, size)              # (G, B, O/G)
        out = _moveaxis(out, f + 1, f)                   # (B, G, O/G)
        shape = list(_aval(out).shape)
        shape[f + 1:f + 3] = [shape[f + 1] * shape[f + 2]]
        return reshape(out, tuple(shape)), f
    return _split_out(out, f, size), f


def _moveaxis(x, src, dst):
    nd = _aval(x).ndim
    perm = [d for d in range(nd) if d != src]
    perm.insert(dst, src)
    return transpose(x, tuple(perm))


def _move_merge(x, src, dst_unbatched):
    """Merge mapped axis `src` (major) into the dimension that is `dst_unbatched` once
    the mapped axis is gone."""
    dst = dst_unbatched + (1 if dst_unbatched >= src else 0)
    return _merge_axes(x, src, dst)


def _split_out(out, axis, size):
    """Dimension `axis` of size B*n -> the mapped axis B at `axis` and n after it."""
    return _split_axis(out, axis, size)


def _conv_source(gen, eqn):
    p = eqn.params
    kw = {k: gen.value(p[k]) for k in ("window_strides", "padding", "lhs_dilation",
                                       "rhs_dilation")}
    kw["dimension_numbers"] = gen.value(tuple(tuple(s) for s in p["dimension_numbers"]))
    for k in ("feature_group_count", "batch_group_count"):
        if p[k] != 1:
            kw[k] = gen.value(p[k])
    if p.get("precision") is not None:
        kw["precision"] = gen.value(source_value(p["precision"]))
    return lax_call("conv_general_dilated", gen, eqn, **kw)


conv_general_dilated_p = core.new_primitive("conv_general_dilated")
register(conv_general_dilated_p, impl=_conv_reference, abstract_eval=_conv_ae,
         lowering=_conv_lowering, batch=_conv_batch, source=_conv_source,
         **bilinear(conv_general_dilated_p, _transpose_lhs, _transpose_rhs))


# ---- lax wrappers ---------------------------------------------------------------------


def _int_tuple(v, n, what):
    if v is None:
        return (1,) * n
    v = tuple(int(x) for x in v)
    if len(v) != n:
        raise ArgumentTypeError(f"{what} must have {n} entries (one per spatial dimension), "
                                f"got {v}")
    if any(x < 1 for x in v):
        raise ArgumentValueError(f"{what} entries must be positive, got {v}")
    return v


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """`lax.conv_general_dilated`: XLA's convolution (see the module docstring);
    `ops.conv_general_dilated` adds JAX's `out_sharding`."""
    la, ra = _aval(lhs), _aval(rhs)
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    nsp = la.ndim - 2
    window_strides = _int_tuple(window_strides, nsp, "window_strides")
    lhs_dilation = _int_tuple(lhs_dilation, nsp, "lhs_dilation")
    rhs_dilation = _int_tuple(rhs_dilation, nsp, "rhs_dilation")
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ArgumentValueError("String padding is not implemented for transposed "
                                     "convolution using this op. Please either exactly specify "
                                     "the required padding or use conv_transpose.")
        in_sp = [la.shape[d] for d in dn.lhs_spec[2:]]
        k_eff = [_dilate(ra.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads(in_sp, k_eff, window_strides, padding)
    padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    if len(padding) != nsp:
        raise ArgumentValueError(f"padding must have {nsp} (low, high) pairs, got {padding}")
    pet = None if preferred_element_type is None else \
        dtypes.canonicalize(np.dtype(preferred_element_type))
    return bind(conv_general_dilated_p, lhs, rhs, window_strides=window_strides,
                padding=padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                dimension_numbers=dn, feature_group_count=int(feature_group_count),
                batch_group_count=int(batch_group_count),
                precision=canonicalize_precision(precision), preferred_element_type=pet,
                out_sharding=None)   # (JAX's key; `ops`' wrapper lays a result out)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """`lax.conv`: NCHW operand, OIHW kernel, no dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """`lax.conv_with_general_padding`: NCHW / OIHW with dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _transpose_padding(k, stride, padding):
    """The padding of the dilated-input convolution that undoes a forward
    convolution's 'SAME' / 'VALID' (or (low, high)) padding, for kernel size `k`."""
    if padding == "SAME":
        total = k + stride - 2
        lo = k - 1 if stride > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + stride - 2 + max(k - stride, 0)
        lo = k - 1
    elif isinstance(padding, tuple):
        lo, hi = (k - p - 1 for p in padding)
        total = lo + hi
    else:
        raise ArgumentValueError(f"conv_transpose padding must be 'SAME', 'VALID' or pairs, got "
                                 f"{padding!r}")
    return lo, total - lo


_TRANSPOSE_LAYOUTS = {3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                      5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """`lax.conv_transpose`: the gradient-of-convolution layout (fractional strides);
    layouts default to NHWC / HWIO. (low, high) pairs are used as given unless
    `use_consistent_padding`, which reads them as the forward convolution's."""
    la, ra = _aval(lhs), _aval(rhs)
    if dimension_numbers is None:
        if la.ndim not in _TRANSPOSE_LAYOUTS:
            raise ArgumentValueError("conv_transpose needs dimension_numbers for rank "
                                     f"{la.ndim} operands")
        dimension_numbers = _TRANSPOSE_LAYOUTS[la.ndim]
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    nsp = la.ndim - 2
    strides = _int_tuple(strides, nsp, "strides")
    rhs_dilation = _int_tuple(rhs_dilation, nsp, "rhs_dilation")
    k_eff = [_dilate(ra.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
    if isinstance(padding, str):
        pads = [_transpose_padding(k, s, padding.upper()) for k, s in zip(k_eff, strides)]
    elif use_consistent_padding:
        pads = [_transpose_padding(k, s, tuple(p)) for k, s, p in zip(k_eff, strides, padding)]
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        dn = dn._replace(rhs_spec=(dn.rhs_spec[1], dn.rhs_spec[0]) + tuple(dn.rhs_spec[2:]))
    return conv_general_dilated(lhs, rhs, (1,) * nsp, pads, lhs_dilation=strides,
                                rhs_dilation=rhs_dilation, dimension_numbers=dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
    """The output shape of `conv_general_dilated` (no dilation) for these shapes."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    strides = _int_tuple(window_strides, nsp, "window_strides")
    in_sp = [lhs_shape[d] for d in dn.lhs_spec[2:]]
    k_sp = [rhs_shape[d] for d in dn.rhs_spec[2:]]
    if isinstance(padding, str):
        padding = padtype_to_pads(in_sp, k_sp, strides, padding)
    sp = _out_spatial(in_sp, k_sp, strides, padding, (1,) * nsp, (1,) * nsp)
    return _out_layout(dn.out_spec, lhs_shape[dn.lhs_spec[0]], rhs_shape[dn.rhs_spec[0]], sp)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The output shape of `conv_transpose` for these shapes."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    strides = _int_tuple(window_strides, nsp, "window_strides")
    k_sp = [rhs_shape[d] for d in dn.rhs_spec[2:]]
    if isinstance(padding, str):
        padding = [_transpose_padding(k, s, padding.upper()) for k, s in zip(k_sp, strides)]
    in_sp = [lhs_shape[d] for d in dn.lhs_spec[2:]]
    # the input dilated by the strides, stride 1 (what conv_transpose runs)
    sp = _out_spatial(in_sp, k_sp, (1,) * nsp, padding, strides, (1,) * nsp)
    return _out_layout(dn.out_spec, lhs_shape[dn.lhs_spec[0]], rhs_shape[dn.rhs_spec[0]], sp)
