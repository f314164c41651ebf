"""Every primitive family's public wrapper functions in one namespace: what
`astjax.lax` re-exports, and what a rule body reaches for when it needs another
family's operation (`base.lax_ops()`, imported inside the function: this module comes
after every family).
"""
from __future__ import annotations

# The elementwise family (astjax/primitives/{comparisons,arithmetic,elementwise}.py: one
# block per primitive, its rules and this wrapper). `not`/`and`/`or`/`xor` are Python
# keywords: their wrappers are `bitwise_not`/`bitwise_and`/`bitwise_or`/`bitwise_xor`.
from .elementwise import (  # noqa: F401
    RoundingMethod, abs, acos, acosh, add, add_any, asin, asinh, atan, atan2, atanh,
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clz, complex, conj, cos,
    cosh, digamma, div, eq, erf, erf_inv, erfc, exp, exp2, expm1, floor, ge, gt, imag,
    integer_pow, is_finite, le, lgamma, log, log1p, logistic, lt, max, min, mul, ne, neg,
    nextafter, polygamma, population_count, pow, real, reciprocal, rem, round, rsqrt,
    shift_left, shift_right_arithmetic, shift_right_logical, sign, sin, sinh, sqrt, square,
    sub, tan, tanh)
from .cumulative import (argmax, argmin, cumlogsumexp, cummax, cummin,  # noqa: F401
                                    cumprod, cumsum)
from .reductions import (Precision, dot, dot_general, reduce_and, reduce_max,  # noqa: F401
                                    reduce_min, reduce_or, reduce_prod, reduce_sum)
from .selection import clamp, select, select_n  # noqa: F401
from .slicing import (_index_scalar, dynamic_index_in_dim,  # noqa: F401
                                 dynamic_slice, dynamic_slice_in_dim, dynamic_update_index_in_dim,
                                 dynamic_update_slice, dynamic_update_slice_in_dim, index_in_dim,
                                 slice, slice_in_dim)
from .sort import sort, sort_key_val, top_k  # noqa: F401
from .structural import (bitcast_convert_type, broadcast, broadcast_in_dim,  # noqa: F401
                                    broadcasted_iota, concatenate, convert_element_type,
                                    copy as copy_p, expand_dims, full, full_like, iota, pad,
                                    reshape, rev, squeeze, transpose, zeros_like_array)

# Control flow (cond, switch, while_loop, fori_loop, scan, map) lives in its own module.
from .cond import cond, stage_sub, switch  # noqa: F401
from .scan import map, scan  # noqa: F401
from .while_loop import fori_loop, while_loop  # noqa: F401
from .gather import (GatherDimensionNumbers, GatherScatterMode,  # noqa: F401
                                gather)
from .scatter import (ScatterDimensionNumbers, scatter, scatter_add,  # noqa: F401
                                 scatter_apply, scatter_max, scatter_min, scatter_mul)
from .custom_derivatives import stop_gradient, stop_gradient_p  # noqa: F401
from .convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers,  # noqa: F401
                          conv_general_dilated, conv_general_shape_tuple, conv_transpose,
                          conv_transpose_shape_tuple, conv_with_general_padding,
                          padtype_to_pads)
from .windowed import reduce_window, reduce_window_shape_tuple  # noqa: F401
from .collectives import (all_gather, all_to_all, axis_index,  # noqa: F401
                                     axis_size, pmax, pmean, pmin, ppermute, pshuffle, psum)

__all__ = [n for n in dir() if not n.startswith("_") and n != "annotations"]
