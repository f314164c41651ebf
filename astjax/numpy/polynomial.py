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
from .arraylike import check_arraylike
from .arrayops import _dt, _shape, _static_indices
from .operands import _constant, _pad_value, asarray, broadcast_shapes, broadcast_to_shape
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


def _add_aligned(a1, a2):
    """a1 + a2 as polynomials along the first axis, as JAX's: the operand with fewer
    leading entries is added into the last entries of the other (broadcast there), and
    the result has the longer operand's shape."""
    if _shape(a2)[0] > _shape(a1)[0]:
        a1, a2 = a2, a1
    n, k = _shape(a1)[0], _shape(a2)[0]
    tail = lax.slice_in_dim(a1, n - k, n, axis=0)
    tail = uf.add(tail, broadcast_to_shape(a2, core.get_aval(tail).shape))
    return tail if k == n else lax.concatenate([lax.slice_in_dim(a1, 0, n - k), tail], 0)


def polyadd(a1, a2):
    """Add two polynomials given as coefficient arrays.
    Args: a1, a2: coefficient arrays along their first axis (JAX also adds 2-D stacks:
        the shorter operand is broadcast into the longer one's last entries).
    Returns: Array of the longer operand's shape.
    Vs NumPy: returns arrays, never `np.poly1d` objects."""
    return _add_aligned(*uf.promote_dtypes(asarray_operand(a1), asarray_operand(a2)))


def polysub(a1, a2):
    """Subtract polynomial `a2` from `a1`.
    Args: a1, a2: coefficient arrays along their first axis (as `polyadd`).
    Returns: Array of the longer operand's shape.
    Vs NumPy: returns arrays, never `np.poly1d` objects."""
    a1, a2 = uf.promote_dtypes(asarray_operand(a1), asarray_operand(a2))
    return _add_aligned(a1, uf.negative(a2))


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


def polyint(p, m=1, k=None):
    """Integrate a polynomial `m` times.
    Args: p: 1-D coefficients; m: static order; k: integration constants (a scalar, or
        one or `m` of them; may be staged).
    Returns: 1-D inexact Array of length len(p) + m.
    Vs NumPy: `m` must be static; as JAX, the constants are appended to `p` and the
        whole is divided by the integration factors, so k[i] is the coefficient of
        x**(m-1-i) (NumPy integrates k[0] again m-1 times)."""
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    return _polyint(p, k, static_int(m, "'m' argument of jnp.polyint"))


@library_jit(static_argnames=("m",))
def _polyint(p, k, m):
    p, k = uf.promote_dtypes_inexact(asarray_operand(p), asarray_operand(k))
    if m < 0:
        raise ArgumentValueError("Order of integral must be positive (see polyder)",
                                 hint="pass m >= 0 (polyder differentiates)")
    k = lax.reshape(k, (1,)) if core.get_aval(k).ndim == 0 else k
    if _shape(k)[0] == 1:
        k = lax.broadcast_in_dim(lax.reshape(k, ()), (m,), ())
    if _shape(k) != (m,):
        raise ArgumentValueError("k must be a scalar or a rank-1 array of length 1 or m.",
                                 hint="give one constant, or m of them")
    if m == 0:
        return p
    n = _shape(p)[0]
    # factor of the coefficient of x**j after m integrations: (j+1)(j+2)...(j+m) for the
    # terms of p, the same product of the positive factors only for the constants
    grid = np.arange(n + m)[None] - np.arange(m)[:, None]
    factors = np.maximum(grid, 1).astype(_dt(p)).prod(0)[::-1]
    return uf.true_divide(lax.concatenate([p, k], 0), _constant(factors))


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
