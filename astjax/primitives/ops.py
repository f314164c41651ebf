"""Every primitive family's public wrapper functions in one namespace: what
`astjax.lax` re-exports, and what a rule body reaches for when it needs another
family's operation (`base.lax_ops()`, imported inside the function: this module comes
after every family).
"""
from __future__ import annotations

from ..errors import ArgumentValueError, check_callable, check_signature

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

# Control flow (cond, switch, while_loop, fori_loop, scan, map) lives in its own module;
# the wrappers below check the user's functions first (see `_checked`).
from . import cond as _cond_mod, scan as _scan_mod, while_loop as _while_mod
from .cond import stage_sub  # noqa: F401
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



def _checked(what, fun, nargs):
    """`fun` must be callable and take `nargs` positional arguments: otherwise a located
    TypeError naming the user's function (not the converted one it would fail in)."""
    check_callable(fun, what)
    check_signature(fun, (None,) * nargs, None, what)


def cond(pred, true_fun, false_fun, *operands):
    """JAX's `lax.cond` (see `primitives/cond.py`), with its branches checked first."""
    for f in (true_fun, false_fun):
        _checked("lax.cond", f, len(operands))
    return _cond_mod.cond(pred, true_fun, false_fun, *operands)


def switch(index, branches, *operands):
    """JAX's `lax.switch`, with its branches checked first."""
    branches = list(branches)
    if not branches:
        raise ArgumentValueError("lax.switch needs at least one branch, got an empty sequence",
                                 hint="pass a list of functions: switch(i, [f0, f1], x)")
    for f in branches:
        _checked("lax.switch", f, len(operands))
    return _cond_mod.switch(index, branches, *operands)


def while_loop(cond_fun, body_fun, init_val):
    """JAX's `lax.while_loop`, with `cond_fun(c)` and `body_fun(c)` checked first."""
    _checked("lax.while_loop cond_fun", cond_fun, 1)
    _checked("lax.while_loop body_fun", body_fun, 1)
    return _while_mod.while_loop(cond_fun, body_fun, init_val)


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """JAX's `lax.fori_loop`, with `body_fun(i, c)` checked first."""
    _checked("lax.fori_loop body_fun", body_fun, 2)
    return _while_mod.fori_loop(lower, upper, body_fun, init_val, unroll=unroll)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """JAX's `lax.scan`, with `f(carry, x)` checked first."""
    _checked("lax.scan", f, 2)
    return _scan_mod.scan(f, init, xs, length, reverse, unroll, _split_transpose)


def map(f, xs, *, batch_size=None):  # noqa: A001 -- JAX's name
    """JAX's `lax.map`, with `f(x)` checked first."""
    _checked("lax.map", f, 1)
    return _scan_mod.map(f, xs, batch_size=batch_size)


__all__ = [n for n in dir() if not n.startswith("_") and n != "annotations"]
