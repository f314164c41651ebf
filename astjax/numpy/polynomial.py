"""Polynomials as coefficient arrays, highest power first (NumPy's `np.poly*`
conventions): `polyval`, `polyadd`, `polysub`, `polymul`, `polyder`, `polyint`, and
`trim_zeros`. Shapes are static: leading zeros are kept unless the function is asked
to trim them, which needs concrete values (`polymul(trim_leading_zeros=True)`,
`trim_zeros`)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentIndexError, ArgumentValueError
from . import ufuncs as uf
from .arrayops import _dt, _shape, _static_indices
from .operands import _constant, _pad_value, asarray, broadcast_shapes
from .statistics import convolve
from .ufuncs import asarray_operand
from .util import canonicalize_axes, library_jit, static_int

__all__ = ["polyval", "polyadd", "polysub", "polymul", "polyder", "polyint", "trim_zeros"]


@library_jit(static_argnames=("unroll",))
def polyval(p, x, *, unroll=16):
    """Evaluate the polynomial with coefficients `p` at `x`.
    Args: p: coefficients along axis 0, highest power first (more axes: one polynomial
        per trailing index, broadcast against `x`); x: array; unroll: loop unroll.
    Returns: Array of values.
    Vs NumPy: Horner loop via lax; `unroll` is an astjax/JAX-only tuning knob.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.polyval(jnp.array([1., 0., 2.]), 2.)
    Array(6., dtype=float32)
    """
    p, x = uf.promote_dtypes(asarray_operand(p), asarray_operand(x))
    if core.get_aval(p).ndim == 0:
        # (JAX's class there: an IndexError)
        raise ArgumentIndexError("polyval: p must have at least one axis (the coefficients)")
    # (a p of more axes holds one polynomial per trailing index: broadcast against x)
    shape = broadcast_shapes(_shape(p)[1:], _shape(x))
    y = lax.full_like(x, 0, dtype=_dt(x), shape=shape)   # (strong, as JAX's: so is the result)
    for i in range(_shape(p)[0]):
        y = uf.add(uf.multiply(y, x), lax.index_in_dim(p, i, 0, False))
    return y


def _pad_front(a, n):
    k = _shape(a)[0]
    return a if k >= n else lax.pad(a, _pad_value(a), [(n - k, 0, 0)])


def _aligned(a1, a2):
    """The two coefficient arrays in one dtype, the shorter padded with leading zeros."""
    a1, a2 = uf.promote_dtypes(asarray_operand(a1), asarray_operand(a2))
    n = max(_shape(a1)[0], _shape(a2)[0])
    return _pad_front(a1, n), _pad_front(a2, n)


def polyadd(a1, a2):
    """Add two polynomials given as coefficient arrays.
    Args: a1, a2: 1-D coefficient arrays.
    Returns: 1-D Array.
    Vs NumPy: returns arrays, never `np.poly1d` objects."""
    return uf.add(*_aligned(a1, a2))


def polysub(a1, a2):
    """Subtract polynomial `a2` from `a1`.
    Args: a1, a2: 1-D coefficient arrays.
    Returns: 1-D Array.
    Vs NumPy: returns arrays, never `np.poly1d` objects."""
    return uf.subtract(*_aligned(a1, a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
    """Multiply two polynomials.
    Args: a1, a2: 1-D coefficient arrays; trim_leading_zeros: strip the operands'
        leading zeros first, as NumPy (the operands must then be concrete).
    Returns: 1-D inexact Array.
    Vs NumPy: by default leading zeros are kept (static shapes)."""
    a1, a2 = uf.promote_dtypes_inexact(asarray_operand(a1), asarray_operand(a2))
    if trim_leading_zeros and (_shape(a1)[0] > 1 or _shape(a2)[0] > 1):
        a1, a2 = trim_zeros(a1, "f"), trim_zeros(a2, "f")
    if _shape(a1)[0] == 0:
        a1 = lax.full((1,), 0, core.get_aval(a1).dtype)
    if _shape(a2)[0] == 0:
        a2 = lax.full((1,), 0, core.get_aval(a2).dtype)
    return convolve(a1, a2)


@library_jit(static_argnames=("m",))
def polyder(p, m=1):
    """Differentiate a polynomial `m` times.
    Args: p: 1-D coefficients; m: static order (a negative one is a ValueError).
    Returns: 1-D Array of an inexact dtype (integer coefficients: the default float), as
    JAX's. Vs NumPy: `m` must be static."""
    [p] = uf.promote_dtypes_inexact(asarray_operand(p))
    m = static_int(m, "polyder's order m")
    if m < 0:
        raise ArgumentValueError("Order of derivative must be positive",
                                 hint="pass m >= 0 (polyint integrates)")
    if m == 0:
        return p
    n = _shape(p)[0]
    # as JAX's: the coefficients multiplied once by the product of the m factors, a
    # product taken in p's dtype (half precision: in float32) as JAX's `prod`
    dt = _dt(p)
    wide = np.float32 if dt in (np.float16, dtypes.bfloat16) else dt
    coeff = (np.arange(m, n, dtype=wide)[None] - np.arange(m, dtype=wide)[:, None]).prod(0)
    return uf.multiply(lax.slice_in_dim(p, 0, max(n - m, 0)),
                       _constant(coeff[::-1].astype(dt)))


@library_jit(static_argnames=("m",))
def polyint(p, m=1, k=None):
    """Integrate a polynomial `m` times.
    Args: p: 1-D coefficients; m: static order; k: integration constants.
    Returns: 1-D Array.
    Vs NumPy: `m` must be static."""
    [p] = uf.promote_args_inexact("polyint", asarray_operand(p))
    m = int(m)
    ks = np.zeros(m) if k is None else np.atleast_1d(np.asarray(k, dtype=np.float64))
    if len(ks) == 1 and m > 1:
        ks = np.full(m, ks[0])
    for i in range(m):
        n = _shape(p)[0]
        div = np.arange(n, 0, -1).astype(_dt(p))
        p = lax.concatenate([uf.true_divide(p, _constant(div)),
                             lax.full((1,), float(ks[i]), _dt(p))], 0)
    return p


def trim_zeros(filt, trim="fb", axis=None):
    """Strip leading and/or trailing zeros of an array along some axes.
    Args: filt: array; trim: 'f', 'b' or 'fb'; axis: axis or axes to trim along
        (None: every axis), each cut to the span of the slices that hold a nonzero.
    Returns: Array of `filt`'s dtype.
    Vs NumPy: the input must be concrete: the output shape depends on its values."""
    v = _static_indices(filt, "jnp.trim_zeros' input")
    x = asarray(filt)       # (a Python scalar too: JAX returns an array, weakly typed)
    axes = set(canonicalize_axes(axis, v.ndim, "trim_zeros"))
    if not axes:            # (before `trim` is read, as JAX's)
        return x
    front, back = "f" in trim.lower(), "b" in trim.lower()
    if not (front or back):
        return x
    for ax in sorted(axes):
        mask = np.any(v, axis=tuple(i for i in range(v.ndim) if i != ax))
        nz = np.nonzero(mask)[0]
        if nz.size == 0:
            start, stop = 0, 0
        else:
            start = int(nz[0]) if front else 0
            stop = int(nz[-1]) + 1 if back else v.shape[ax]
        x = lax.slice_in_dim(x, start, stop, axis=ax)
    return x
