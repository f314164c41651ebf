"""Convolution utilities built on `conv_general_dilated`: the shape and layout helpers
`conv_shape_tuple` and `conv_general_permutations`, image patches
(`conv_general_dilated_patches`: a grouped convolution with a 0/1 kernel that copies
each receptive field into the feature dimension) and the unshared ("locally
connected") convolution `conv_general_dilated_local` (patches contracted with one
kernel per output position).
"""
from __future__ import annotations

import math
import operator

import numpy as np

from . import core
from .errors import ArgumentTypeError, ArgumentValueError
from .primitives import ops as lax
from .primitives.convolution import (ConvDimensionNumbers, conv_dimension_numbers,
                                     padtype_to_pads)
from .primitives.reductions import canonicalize_precision

__all__ = ["conv_shape_tuple", "conv_general_permutations", "conv_general_dilated_patches",
           "conv_general_dilated_local"]


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """`lax.conv_shape_tuple`: the output shape of a convolution whose operands are
    in the canonical layouts (NC<spatial>, OI<spatial>); `pads` is a padding string
    or one (low, high) pair per spatial dimension."""
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    pads = [tuple(p) for p in pads]
    if len(pads) != len(lhs_shape) - 2:
        raise ArgumentTypeError(f"Wrong number of explicit pads for convolution: expected "
                                f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(n < 0 for n in padded):
        raise ArgumentValueError("Negative padding is larger than the size of the corresponding "
                                 f"dimension: got padding={pads} for lhs_shape[2:]="
                                 f"{lhs_shape[2:]}")
    spatial = tuple(0 if n < k else (n - k) // s + 1
                    for n, k, s in zip(padded, rhs_shape[2:], strides))
    batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (batch, rhs_shape[0]) + spatial


def conv_general_permutations(dimension_numbers):
    """`lax.conv_general_permutations`: for three layout strings (operand, kernel,
    output), the axis of each canonical dimension -- (N, C, spatial...),
    (O, I, spatial...), (N, C, spatial...) -- with spatial dimensions in the
    kernel's order."""
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    specs = tuple(dimension_numbers)
    for i, ((a, b), spec) in enumerate(zip(pairs, specs)):
        if not spec.count(a) == spec.count(b) == 1:
            raise ArgumentTypeError(f"convolution dimension_numbers[{i}] must contain the "
                                    f"characters '{a}' and '{b}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise ArgumentTypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                                    f"characters, got {spec}.")
    spatial = [set(s) - set(p) for s, p in zip(specs, pairs)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise ArgumentTypeError("convolution dimension_numbers elements must each have the "
                                f"same set of spatial characters, got {dimension_numbers}.")
    kernel_order = [c for c in specs[1] if c not in "OI"]
    return tuple((s.index(a), s.index(b)) + tuple(s.index(c) for c in kernel_order)
                 for s, (a, b) in zip(specs, pairs))


def _patch_kernel(dtype, channels, filter_shape):
    """The (channels * S, 1, *filter_shape) 0/1 kernel (S = prod(filter_shape)) whose
    output feature c * S + s copies window position s of input channel c."""
    size = math.prod(filter_shape)
    one_hot = np.eye(size, dtype=dtype).reshape((size, 1) + filter_shape)
    return np.concatenate([one_hot] * channels, axis=0)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                                 precision=None, preferred_element_type=None):
    """`lax.conv_general_dilated_patches`: the receptive fields of a convolution with
    these parameters, flattened into the output's feature dimension ("C"), ordered
    input channel first, then the window's spatial positions in the kernel layout's
    order; the feature size is `lhs.shape[C] * prod(filter_shape)`."""
    lhs = np.asarray(lhs) if isinstance(lhs, (list, tuple)) else lhs
    aval = core.get_aval(lhs)
    filter_shape = tuple(operator.index(n) for n in filter_shape)
    dn = conv_dimension_numbers(aval.shape, (1, 1) + filter_shape, dimension_numbers)
    channels = aval.shape[dn.lhs_spec[1]]
    kernel = _patch_kernel(aval.dtype, channels, filter_shape)
    canonical = ConvDimensionNumbers(dn.lhs_spec, tuple(range(aval.ndim)), dn.out_spec)
    prec = None if precision is None else (precision, lax.Precision.DEFAULT)
    return lax.conv_general_dilated(lhs, kernel, window_strides, padding,
                                    lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                                    dimension_numbers=canonical, feature_group_count=channels,
                                    precision=prec,
                                    preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """`lax.conv_general_dilated_local`: a convolution whose kernel differs at every
    output position (a locally connected layer). `rhs` holds, in the kernel layout,
    O output features, I = (input features * prod(filter_shape)) patch entries
    (ordered as `conv_general_dilated_patches` orders them) and one spatial axis per
    output spatial axis, of the output's size."""
    prec = canonicalize_precision(precision)
    if prec is not None and not (isinstance(prec, tuple) and len(prec) == 2):
        raise ArgumentValueError(f"Unsupported precision for conv_general_dilated_local: "
                                 f"{precision}")
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dimension_numbers,
                                           precision=None if prec is None else prec[0])
    lhs_shape = core.get_aval(patches).shape
    dn = conv_dimension_numbers(lhs_shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    # batch over the output's spatial axes (ascending), paired with the kernel's
    pairs = sorted(zip(dn.out_spec[2:], dn.rhs_spec[2:]))
    batch = ([p for p, _ in pairs], [k for _, k in pairs])
    out = lax.dot_general(patches, rhs, (((dn.out_spec[1],), (dn.rhs_spec[1],)), batch),
                          precision=precision)
    # out: (spatial..., N, O) -> N at out_spec[0], O at out_spec[1]
    nd = len(lhs_shape)
    order = [None] * nd
    order[dn.out_spec[0]], order[dn.out_spec[1]] = nd - 2, nd - 1
    rest = iter(range(nd - 2))
    return lax.transpose(out, [next(rest) if o is None else o for o in order])
