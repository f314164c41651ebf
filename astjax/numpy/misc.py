"""The remaining NumPy-compatible names: dtype aliases, printing helpers, host-side
I/O (`load`, `save`, `frombuffer`, ... act on concrete values), `partition` /
`argpartition` (a full sort is a valid partition), `vectorize` (through `vmap`),
`poly`, `polyfit`, `polydiv`, `unwrap`, `sort_complex`, `mask_indices`,
`einsum_path`."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentError, ArgumentValueError, NotImplementedInAstjaxError
from . import linalg
from . import ufuncs as uf
from .arrayops import vander
from .contractions import matmul
from .operands import asarray
from .reductions import sum as _sum
from .shapes import concatenate
from .sorting import argsort, cumsum, sort
from .statistics import convolve, diff
from .ufuncs import asarray_operand
from .util import canonicalize_axis
from .vectorize import vectorize  # noqa: F401  (re-exported)

__all__ = ["bool", "single", "double", "csingle", "cdouble", "character", "flexible",
           "object_", "ComplexWarning", "array_repr", "array_str", "get_printoptions",
           "set_printoptions", "printoptions", "partition", "argpartition", "vectorize",
           "poly", "polyfit", "polydiv", "unwrap", "sort_complex", "mask_indices",
           "einsum_path", "frombuffer", "fromstring", "fromiter", "fromfile", "load", "save",
           "savez"]

bool = dtypes.bool_  # noqa: A001
single, double = dtypes.float32, dtypes.float64
csingle, cdouble = dtypes.complex64, dtypes.complex128
character, flexible, object_ = np.character, np.flexible, np.object_
ComplexWarning = np.exceptions.ComplexWarning
get_printoptions, set_printoptions, printoptions = (np.get_printoptions, np.set_printoptions,
                                                   np.printoptions)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """String representation of an array, as `repr` gives it.

    Args:
      arr: the array. max_line_width, precision, suppress_small: accepted for
        NumPy compatibility; ignored.
    Returns:
      A string such as `Array([1, 2], dtype=int32)`.
    Differs from NumPy: formatting options are ignored; JAX-style `Array(...)` text.
    """
    return repr(arr)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """String of an array's values without the `Array(...)` wrapper.

    Args:
      a: the array (copied to the host). max_line_width, precision,
        suppress_small: passed to NumPy's formatter.
    Returns:
      The formatted string.
    Differs from NumPy: the array must be concrete (not traced).
    """
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


def partition(a, kth, axis=-1):
    """A copy of `a` where the `kth` element is in its sorted place, smaller
    ones before it and larger ones after.

    A sorted array satisfies the partition property for every kth, so this sorts.

    Args:
      a: input array. kth: index of the element to place. axis: axis to use.
    Returns:
      The partitioned (here: fully sorted) array.
    Differs from NumPy: the result is fully sorted along `axis`.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.partition(jnp.array([3, 1, 2]), 1)
      Array([1, 2, 3], dtype=int32)
    """
    _reject_complex("partition", a)
    return sort(a, axis=axis)


def _reject_complex(name, a):
    """JAX's partitions are two `top_k`s, which have no complex order: it refuses."""
    if dtypes.issubdtype(core.get_aval(asarray_operand(a)).dtype, np.complexfloating):
        raise NotImplementedInAstjaxError(f"jnp.{name} for complex dtype is not implemented.",
                                          hint="sort the array (`jnp.sort` orders complex "
                                               "values by real, then imaginary part)")


def argpartition(a, kth, axis=-1):
    """Indices that would partition `a` around its `kth` element.

    Args:
      a: input array. kth: index of the element to place. axis: axis to use.
    Returns:
      Integer indices; here those of a full stable sort along `axis`.
    Differs from NumPy: the indices fully sort `a` (a valid partition).
    """
    _reject_complex("argpartition", a)
    return argsort(a, axis=axis)


def sort_complex(a):
    """Sort by real part, then imaginary part, and return a complex array.

    Args:
      a: input array.
    Returns:
      The sorted values, converted to a complex dtype if they were real.
    Differs from NumPy: real inputs become complex64 unless x64 is enabled.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.sort_complex(jnp.array([3, 1, 2]))
      Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
    """
    a = sort(asarray_operand(a))
    dt = core.get_aval(a).dtype
    if not dtypes.issubdtype(dt, np.complexfloating):
        a = lax.convert_element_type(a, dtypes.canonicalize(np.promote_types(dt, np.complex64)))
    return a


def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots.

    Args:
      seq_of_zeros: 1-D array of roots.
    Returns:
      1-D coefficient array, highest power first.
    Differs from NumPy: a square matrix argument (characteristic polynomial) is
    not supported.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.poly(jnp.array([1.0, 2.0]))
      Array([ 1., -3.,  2.], dtype=float32)
    """
    z = asarray_operand(seq_of_zeros)
    zv = core.get_aval(z)
    if zv.ndim == 2 and zv.shape[0] == zv.shape[1] and zv.shape[0] > 0:
        raise ArgumentValueError("jnp.poly of a matrix needs eigenvalues, which astjax lacks")
    [z] = uf.promote_dtypes_inexact(z)
    dt = core.get_aval(z).dtype
    out = lax.full((1,), 1, dt)
    for i in range(zv.shape[0] if zv.ndim else 0):
        root = lax.slice(z, (i,), (i + 1,))
        out = convolve(out, lax.concatenate([lax.full((1,), 1, dt), uf.negative(root)], 0))
    return out


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree `deg`.

    Least squares through the normal equations (small degrees).

    Args:
      x: sample x-coordinates. y: 1-D or 2-D sample values. deg: static degree.
      rcond: accepted for compatibility. w: optional per-sample weights.
    Returns:
      Coefficients, highest power first (one column per column of `y`).
    Differs from NumPy: `full=True` and `cov=True` are not implemented.
    """
    if full or cov:
        raise NotImplementedInAstjaxError("polyfit(full=True / cov=True) is not implemented")
    x, y = uf.promote_dtypes_inexact(x, y)
    A = vander(x, int(deg) + 1)
    if w is not None:
        [w] = uf.promote_dtypes(lax.convert_element_type(asarray_operand(w),
                                                         core.get_aval(x).dtype))
        A = uf.multiply(A, lax.reshape(w, (core.get_aval(w).shape[0], 1)))
        y = uf.multiply(y, w if core.get_aval(y).ndim == 1 else lax.reshape(
            w, (core.get_aval(w).shape[0], 1)))
    scale = uf.sqrt(_sum(uf.multiply(A, A), axis=0))
    A = uf.true_divide(A, scale)
    At = lax.transpose(A, (1, 0))
    c = linalg.solve(matmul(At, A), matmul(At, y))
    return uf.true_divide(c, scale if core.get_aval(c).ndim == 1 else
                          lax.reshape(scale, (core.get_aval(scale).shape[0], 1)))


def polydiv(u, v, *, trim_leading_zeros=False):
    """Quotient and remainder of polynomial division.

    Args:
      u: dividend coefficients. v: divisor coefficients (highest power first).
      trim_leading_zeros: accepted for JAX compatibility.
    Returns:
      `(quotient, remainder)`; the remainder keeps the length of `u`.
    Differs from NumPy: leading zeros of the remainder are not trimmed (static
    shapes).
    """
    u, v = uf.promote_dtypes_inexact(u, v)
    m, n = core.get_aval(u).shape[0] - 1, core.get_aval(v).shape[0] - 1
    dt = core.get_aval(u).dtype
    scale = uf.true_divide(1.0, lax.index_in_dim(v, 0, 0, False))
    q = lax.full((max(m - n + 1, 1),), 0, dt)
    r = u
    for k in range(0, m - n + 1):
        d = uf.multiply(scale, lax.index_in_dim(r, k, 0, False))
        q = lax.dynamic_update_slice(q, lax.reshape(d, (1,)), (np.int32(k),))
        shifted = lax.pad(uf.multiply(d, v), np.asarray(0, dt)[()], [(k, m - n - k, 0)])
        r = uf.subtract(r, shifted)
    return q, r


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """Remove jumps larger than `discont` by adding multiples of `period`.

    Args:
      p: input angles. discont: jump size to correct (default: period / 2).
      axis: axis to unwrap along. period: size of the wrap-around range.
    Returns:
      The unwrapped array, same shape as `p`.
    Differs from NumPy: results follow JAX's dtype rules (float32 by default).
    """
    [p] = uf.promote_dtypes_inexact(p)
    nd = core.get_aval(p).ndim
    axis = canonicalize_axis(axis, nd, "unwrap")
    discont = period / 2 if discont is None else discont
    dd = diff(p, axis=axis)
    half = period / 2
    ddmod = uf.subtract(uf.remainder(uf.add(dd, half), period), half)
    ddmod = uf.where(uf.logical_and(uf.equal(ddmod, -half), uf.greater(dd, 0)), half, ddmod)
    correct = uf.subtract(ddmod, dd)
    correct = uf.where(uf.less(uf.abs(dd), discont), 0.0, correct)
    shape = list(core.get_aval(p).shape)
    shape[axis] = 1
    zero = lax.full(tuple(shape), 0, core.get_aval(p).dtype)
    return uf.add(p, concatenate([zero, cumsum(correct, axis=axis)], axis=axis))


def mask_indices(n, mask_func, k=0, *, size=None):
    """Indices of an (n, n) mask produced by `mask_func`, e.g. `jnp.triu`.

    Args:
      n: matrix size. mask_func: function like `triu(m, k)`. k: its offset.
      size: accepted for JAX compatibility.
    Returns:
      `(rows, cols)` integer arrays of the non-zero mask entries.
    Differs from NumPy: the mask is built on the host, so `n` must be static.
    """
    m = np.asarray(mask_func(np.ones((int(n), int(n)), np.int32), k))
    r, c = np.nonzero(m)
    idt = dtypes.canonicalize(dtypes.dtype(int))
    return asarray(r.astype(idt)), asarray(c.astype(idt))


def einsum_path(subscripts, *operands, optimize="greedy"):
    """Contraction order NumPy's optimizer would choose for an einsum.

    Args:
      subscripts: the einsum spec. operands: arrays (only shapes are used).
      optimize: optimizer strategy, e.g. 'greedy'.
    Returns:
      `(path, description)` as from `numpy.einsum_path`.
    Differs from NumPy: only operand shapes are looked at, so traced arrays work.
    """
    shapes = [np.empty(core.get_aval(o).shape if hasattr(o, "aval") else np.shape(o))
              for o in operands]
    return np.einsum_path(subscripts, *shapes, optimize=optimize)


def _host(fn):
    def f(*args, **kwargs):
        v = fn(*args, **kwargs)
        return asarray(np.asarray(v)) if isinstance(v, np.ndarray) else v
    f.__name__ = fn.__name__
    f.__doc__ = f"""Host-side `numpy.{fn.__name__}`, with an ndarray result turned into an astjax Array.

Args:
  Same as `numpy.{fn.__name__}`.
Returns:
  An astjax Array (other results are passed through unchanged).
Differs from NumPy: runs eagerly on the host; not usable inside jit.
"""
    return f


frombuffer = _host(np.frombuffer)
fromstring = _host(np.fromstring)
fromiter = _host(np.fromiter)
fromfile = _host(np.fromfile)
load = _host(np.load)


def save(file, arr, allow_pickle=True):
    """Write an array to a `.npy` file.

    Args:
      file: path or file object. arr: array (copied to the host).
      allow_pickle: passed to `numpy.save`.
    Returns:
      None.
    Differs from NumPy: the array must be concrete (not traced).
    """
    return np.save(file, np.asarray(arr), allow_pickle=allow_pickle)


def savez(file, *args, **kwds):
    """Write several arrays to an uncompressed `.npz` archive.

    Args:
      file: path or file object. args / kwds: arrays, saved under
        `arr_0, ...` or under their keyword names.
    Returns:
      None.
    Differs from NumPy: the arrays must be concrete (not traced).
    """
    return np.savez(file, *[np.asarray(a) for a in args],
                    **{k: np.asarray(v) for k, v in kwds.items()})
