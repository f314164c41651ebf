"""Array creation: zeros/ones/full(_like), arange, linspace/logspace/geomspace, eye,
tri/tril/triu, diag, meshgrid (`array`/`asarray` live in `operands`, below every
other module of the numpy layer). The Array API's creation functions take `device=`
(`util.with_device`), and JAX's `out_sharding=` (`util.with_out_sharding`)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..errors import (ArgumentValueError, ArgumentZeroDivisionError, ConcretizationError,
                      ShapeValueError)
from .operands import (_constant, _dtype, _static_shape, array, asarray, _pad_value,  # noqa: F401
                       broadcast_shapes,
                       asarray_operand, broadcast_to_shape, check_python_ints,
                       operator_index)
from .shapes import diagonal, moveaxis, ndim, _reshape as reshape, shape
from .ufuncs import exp, log, multiply, power, where
from .util import static_int, with_device, with_out_sharding, library_jit as _library_jit
from ..shape_poly import is_symbolic_dim
from ..typing import Array
from ..primitives.vma import typed_like   # (inside a shard_map body: typed as `a`)
from ..codegen.explicit import layouts_of
from ..lax_extras import placed_like    # (an eager result where `a` lives, as JAX's)


@with_out_sharding("jnp.zeros")
def zeros(shape, dtype=None) -> Array:
    """Return an array of the given shape filled with zeros.
    Args: shape: int or tuple of ints; dtype: optional dtype.
    Returns: Array of zeros.
    Vs NumPy: `shape` must be static; default dtype is float32 (float64 under x64).
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.zeros((2, 2))
    Array([[0., 0.],
           [0., 0.]], dtype=float32)
    """
    return lax.full(_static_shape(shape), 0, _creation_dtype(dtype))


@with_out_sharding("jnp.ones")
def ones(shape, dtype=None) -> Array:
    """Return an array of the given shape filled with ones.
    Args: shape: int or tuple of ints; dtype: optional dtype.
    Returns: Array of ones.
    Vs NumPy: `shape` must be static; default dtype is float32 unless x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.ones(3, dtype=jnp.int32)
    Array([1, 1, 1], dtype=int32)
    """
    return lax.full(_static_shape(shape), 1, _creation_dtype(dtype))


def _creation_dtype(dtype):
    """`zeros` / `ones`' dtype: float by default; a user extended dtype as it is (JAX's
    `lax.full` fills it by the dtype's own `full` rule)."""
    return dtype if dtypes.is_user_extended(dtype) else _dtype(dtype, dtypes.dtype(float))


@with_out_sharding("jnp.zeros")
def empty(shape, dtype=None):
    """Return a new array of the given shape (zero-filled in astjax).
    Args: shape: int or tuple of ints; dtype: optional dtype.
    Returns: Array.
    Vs NumPy: as in JAX, contents are zeros, not uninitialized memory."""
    return zeros(shape, dtype)


def _weak_if(x, weak):
    """`x` weakly typed when `weak` (JAX's `lax.full` / `full_like` keep the weak type of
    a Python-scalar fill value or template when no dtype is given)."""
    return lax.convert_element_type(x, core.get_aval(x).dtype, weak_type=True) if weak else x


def _is_weak(x):
    return not isinstance(x, (list, tuple)) and dtypes.dtype_and_weak(x)[1]


@with_out_sharding("full")
def full(shape, fill_value, dtype=None) -> Array:
    """Return an array of `shape` filled with `fill_value`.
    Args: shape: int or tuple; fill_value: scalar or broadcastable array; dtype: optional.
    Returns: Array.
    Vs NumPy: without `dtype`, the fill value's dtype (and weak type) is kept.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.full((2,), 7)
    Array([7, 7], dtype=int32, weak_type=True)
    """
    fill_value = fill_value if dtype is not None or not isinstance(fill_value, (list, tuple)) \
        else array(fill_value)
    shape = _static_shape(shape)
    if dtypes.is_user_extended(dtype):   # the dtype's own `full` rule, as JAX's
        return lax.full(shape, fill_value, dtype)
    weak = dtype is None and _is_weak(fill_value)
    if dtype is None and not dtypes.is_weak_scalar(fill_value):
        return broadcast_to_shape(asarray(fill_value), shape)
    dt = _dtype(dtype, dtypes.result_type(fill_value))
    check_python_ints(fill_value, dt)
    aval = core.get_aval(fill_value)
    if aval.ndim:
        return broadcast_to_shape(lax.convert_element_type(fill_value, dt), shape)
    return _weak_if(lax.full(shape, fill_value, dt), weak)


def _like(name, value):
    def f(a, dtype=None, shape=None):
        """Return an array shaped like `a`, filled with a constant (`empty_like`: zeros).
        Args: a: array; dtype: optional dtype; shape: optional static shape override.
        Returns: new Array with `a`'s shape and dtype unless overridden.
        Vs NumPy: contents are always defined (no uninitialized memory); keeps weak types."""
        av = core.get_aval(a) if not isinstance(a, (list, tuple)) else core.get_aval(np.asarray(a))
        return placed_like(typed_like(_weak_if(_full(a, shape, av, value, _dtype(
            dtype, av.dtype)), dtype is None and _is_weak(a)), a), a)
    f.__name__ = name
    return f


zeros_like = with_out_sharding("jnp.zeros_like")(_like("zeros_like", 0))
ones_like = with_out_sharding("jnp.ones_like")(_like("ones_like", 1))


@with_device
def empty_like(prototype, dtype=None, shape=None):
    """Return an array shaped like `prototype` (zero-filled in astjax).
    Args: prototype: array; dtype: optional dtype; shape: optional static shape override.
    Returns: new Array with `prototype`'s shape and dtype unless overridden.
    Vs NumPy: as in JAX, contents are zeros, not uninitialized memory."""
    return _like("empty_like", 0)(prototype, dtype, shape)


@with_out_sharding("full_like")
def full_like(a, fill_value, dtype=None, shape=None):
    """Return an array like `a` filled with `fill_value`.
    Args: a: array; fill_value: scalar or array; dtype, shape: optional overrides.
    Returns: Array with `a`'s shape and dtype unless overridden.
    Vs NumPy: `shape` must be static; the result never aliases `a`.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.full_like(jnp.zeros(2), 3.5)
    Array([3.5, 3.5], dtype=float32)
    """
    av = core.get_aval(a)
    if np.ndim(fill_value):
        # (JAX: an array fill value is cast to the template's dtype -- strong -- and
        # broadcast to its shape)
        return broadcast_to_shape(asarray(fill_value, dtype=_dtype(dtype, av.dtype)),
                                  av.shape if shape is None else _static_shape(shape))
    return placed_like(typed_like(_weak_if(_full(a, shape, av, fill_value, _dtype(
        dtype, av.dtype)), dtype is None and _is_weak(a)), a), a)


def _full(a, shape, av, value, dtype):
    """`full_like`'s array: `a`'s type when `a` is staged with a layout on Explicit axes
    (JAX's out_sharding there), else a plain `lax.full`."""
    s = layouts_of([a])[0] if shape is None and isinstance(a, Tracer) else None
    if s is None:
        return lax.full(av.shape if shape is None else _static_shape(shape), value, dtype)
    return lax.broadcast_in_dim(lax.full((), value, dtype), av.shape, (), out_sharding=s)


@with_out_sharding("jnp.arange")
def arange(start, stop=None, step=None, dtype=None) -> Array:
    """Return evenly spaced values in the half-open interval [start, stop).
    Args: start: number; stop: optional end; step: optional increment; dtype: optional.
    Returns: 1-D Array.
    Vs NumPy: bounds must be static; int results are int32 and float results float32 unless
        x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.arange(5)
    Array([0, 1, 2, 3, 4], dtype=int32)
    """
    for v in (start, stop, step):
        if isinstance(v, Tracer) and v.known is None:
            raise ConcretizationError("jnp.arange needs static start/stop/step: the length of "
                                      "the result is part of its shape")
    if any(is_symbolic_dim(v) for v in (start, stop, step)):
        return _symbolic_arange(start, stop, step, dtype)
    start = np.asarray(start).item() if hasattr(start, "__array__") else start
    stop = np.asarray(stop).item() if hasattr(stop, "__array__") else stop
    step = np.asarray(step).item() if hasattr(step, "__array__") else step
    if stop is None:   # (`arange(n, None, step)` too: 0 .. n, as NumPy and JAX)
        start, stop = 0, start
    step = 1 if step is None else step
    if any(isinstance(v, complex) or np.iscomplexobj(v) for v in (start, stop, step)):
        raise ArgumentValueError("jnp.arange does not take complex start/stop/step (as JAX)",
                                 hint="build a real range and multiply it by a complex number")
    if step == 0:
        raise ArgumentZeroDivisionError("jnp.arange: step is 0 (division by zero)",
                                        hint="pass a nonzero step")
    default = dtypes.result_type(*(v for v in (start, stop, step) if v is not None))
    dt = _dtype(dtype, default)
    n = max(int(np.ceil((stop - start) / step)), 0)
    if start == 0 and step == 1:
        return lax.iota(dt, n)
    return _constant(np.arange(start, stop, step).astype(dt)[:n]) if n <= 0 else \
        _affine_iota(dt, n, start, step)


def _symbolic_arange(start, stop, step, dtype):
    """`arange` whose bounds are symbolic dimensions (jax.export's shape
    polymorphism): integers, a positive static step."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if is_symbolic_dim(step) or not isinstance(step, int) or step <= 0:
        raise ArgumentValueError(f"jnp.arange with symbolic bounds needs a positive static "
                                 f"integer step, got {step!r}")
    dt = _dtype(dtype, dtypes.canonicalize(dtypes.int64))
    n = (stop - start + step - 1) // step
    r = lax.iota(dt, n)
    return r if (start, step) == (0, 1) else lax.add(lax.mul(r, np.asarray(step, dt)[()]),
                                                      lax.convert_element_type(
                                                          asarray_operand(start), dt))


def _affine_iota(dt, n, start, step):
    # (start and step converted as JAX converts them: wrapping into an unsigned dtype,
    # `arange(-2, 3, dtype=uint16)` is [65534, 65535, 0, 1, 2]; NumPy would refuse -2)
    r = lax.iota(dt, n)
    return lax.add(lax.mul(r, np.asarray(step).astype(dt)[()]), np.asarray(start).astype(dt)[()])


@with_device
@_library_jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """Return `num` evenly spaced samples from `start` to `stop`.
    Args: start, stop: scalars or arrays; num: static int; endpoint, retstep, dtype, axis.
    Returns: Array (and the step when `retstep`).
    Vs NumPy: `num` must be static; results default to float32 unless x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num = static_int(num, "jnp.linspace: num")
    if num < 0:
        raise ArgumentValueError(f"jnp.linspace: number of samples, {num}, must be "
                                 f"non-negative")
    # as JAX: by default the inexact type of start's and stop's (a float32 start stays
    # float32 beside a Python float stop, also under x64)
    dt = _dtype(dtype, dtypes.to_inexact(dtypes.result_type(start, stop)))
    comp_dt = dtypes.to_inexact(dt)   # (as JAX: float16 samples are computed in float16)
    start = lax.convert_element_type(asarray(start), comp_dt)
    stop = lax.convert_element_type(asarray(stop), comp_dt)
    both = broadcast_shapes(core.get_aval(start).shape, core.get_aval(stop).shape)
    start, stop = broadcast_to_shape(start, both), broadcast_to_shape(stop, both)
    div = (num - 1) if endpoint else num
    if div > 0:
        step = lax.div(lax.sub(stop, start), np.asarray(div, comp_dt)[()])
    else:   # (JAX's step of no interval: a 0-d NaN)
        step = lax.full((), np.nan, comp_dt)
    sshape = core.get_aval(start).shape
    # start*(1-t) + stop*t with t = i/div (as JAX) recovers both ends exactly and
    # rounds interior points the way JAX does (start + i*step does not).
    real_dt = np.empty((), comp_dt).real.dtype
    t = lax.div(lax.broadcasted_iota(real_dt, (num,) + sshape, 0),
                np.asarray(max(div, 1), real_dt)[()])
    t = lax.convert_element_type(t, comp_dt)
    s = broadcast_to_shape(start, (num,) + sshape)
    e = broadcast_to_shape(stop, (num,) + sshape)
    out = lax.add(lax.mul(s, lax.sub(np.asarray(1, comp_dt)[()], t)), lax.mul(e, t))
    if endpoint and num > 1:
        out = lax.concatenate([lax.slice_in_dim(out, 0, num - 1), lax.expand_dims(stop, (0,))], 0)
    if axis != 0:
        out = moveaxis(out, 0, axis)
    if dtypes.issubdtype(dt, np.integer):   # JAX rounds integer samples down, not to zero
        out = lax.floor(out)
    out = lax.convert_element_type(out, dt)
    return (out, step) if retstep else out


@_library_jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """Return `num` samples spaced evenly on a log scale.
    Args: start, stop: exponents; num: static int; endpoint; base; dtype; axis.
    Returns: Array of `base ** linspace(start, stop)`.
    Vs NumPy: `num` must be static; float32 by default unless x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.logspace(0, 2, 3)
    Array([  1.,  10., 100.], dtype=float32)
    """
    return lax.convert_element_type(power(base, linspace(start, stop, num, endpoint, axis=axis)),
                                    _dtype(dtype, dtypes.dtype(float)))


@_library_jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Return `num` samples forming a geometric progression.
    Args: start, stop: nonzero endpoints; num: static int; endpoint; dtype; axis.
    Returns: Array.
    Vs NumPy: `num` must be static; float32 by default unless x64."""
    return lax.convert_element_type(exp(linspace(log(asarray(float(start)) if isinstance(start, (int, float)) else start),
                                                 log(asarray(float(stop)) if isinstance(stop, (int, float)) else stop),
                                                 num, endpoint, axis=axis)),
                                    _dtype(dtype, dtypes.dtype(float)))


def _dims(what, *dims):
    """Static, nonnegative matrix dimensions (`eye`, `tri`): a ValueError otherwise, as
    JAX's."""
    out = tuple(d if is_symbolic_dim(d) else static_int(d, f"{what}: a dimension")
                for d in dims)
    if any(d < 0 for d in out):
        raise ShapeValueError(f"{what}: negative dimensions are not allowed, got "
                              f"{' and '.join(map(str, out))}")
    return out


@with_device
def eye(N, M=None, k=0, dtype=None) -> Array:
    """Return a 2-D array with ones on a diagonal and zeros elsewhere.
    Args: N: rows; M: optional columns; k: diagonal offset; dtype: optional.
    Returns: Array of shape (N, M).
    Vs NumPy: `N` and `M` must be static; float32 by default unless x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.eye(2)
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    N, M = _dims("jnp.eye", N, N if M is None else M)
    k_dtype = k.dtype if hasattr(k, "dtype") else np.asarray(k).dtype
    if np.shape(k) != () or not np.issubdtype(k_dtype, np.integer):
        raise ArgumentValueError(f"k must be a scalar integer; got {k!r:.60}",
                                 hint="the diagonal offset is an int: 0 the main diagonal, "
                                      "1 the one above")
    dt = _dtype(dtype, dtypes.dtype(float))
    r = lax.broadcasted_iota(dtypes.int32, (N, M), 0)
    c = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    return lax.convert_element_type(lax.eq(lax.add(r, np.int32(k)), c), dt)


def identity(n, dtype=None):
    """Return the n-by-n identity matrix.
    Args: n: static int; dtype: optional dtype.
    Returns: Array of shape (n, n).
    Vs NumPy: float32 by default unless x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.identity(2, dtype=jnp.int32)
    Array([[1, 0],
           [0, 1]], dtype=int32)
    """
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """Return a lower-triangular matrix of ones.
    Args: N: rows; M: optional columns; k: diagonal offset; dtype: optional.
    Returns: Array of shape (N, M) with ones on and below diagonal `k`.
    Vs NumPy: sizes must be static; float32 by default unless x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.tri(2, dtype=jnp.int32)
    Array([[1, 0],
           [1, 1]], dtype=int32)
    """
    N, M = _dims("jnp.tri", N, N if M is None else M)
    k = static_int(k, "jnp.tri's k")
    r = lax.broadcasted_iota(dtypes.int32, (N, M), 0)
    c = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    return lax.convert_element_type(lax.ge(lax.add(r, np.int32(k)), c),
                                    _dtype(dtype, dtypes.dtype(float)))


def _at_least_2d(m, what):
    if ndim(m) < 2:
        raise ShapeValueError(f"argument to jnp.{what} must be at least 2-D, got shape "
                              f"{shape(m)}", hint="tril/triu act on the last two axes")


@_library_jit(static_argnames=("k",))
def tril(m, k=0):
    """Zero out the elements of `m` above diagonal `k`.
    Args: m: array with ndim >= 2; k: diagonal offset.
    Returns: Array with the same shape as `m`.
    Vs NumPy: input of ndim < 2 raises (no 1-D broadcast as in NumPy).
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.tril(jnp.ones((2, 2)))
    Array([[1., 0.],
           [1., 1.]], dtype=float32)
    """
    k = static_int(k, "jnp.tril's k")   # (JAX: TypeError for 1.5)
    m = asarray(m)
    _at_least_2d(m, "tril")
    N, M = core.get_aval(m).shape[-2:]
    mask = lax.convert_element_type(tri(N, M, k), dtypes.bool_)
    return where(mask, m, lax.full_like(m, 0))


@_library_jit(static_argnames=("k",))
def triu(m, k=0):
    """Zero out the elements of `m` below diagonal `k`.
    Args: m: array with ndim >= 2; k: diagonal offset.
    Returns: Array with the same shape as `m`.
    Vs NumPy: input of ndim < 2 raises (no 1-D broadcast as in NumPy).
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.triu(jnp.ones((2, 2)))
    Array([[1., 1.],
           [0., 1.]], dtype=float32)
    """
    k = static_int(k, "jnp.triu's k")   # (JAX: TypeError for 1.5)
    m = asarray(m)
    _at_least_2d(m, "triu")
    N, M = core.get_aval(m).shape[-2:]
    mask = lax.convert_element_type(tri(N, M, k - 1), dtypes.bool_)
    return where(mask, lax.full_like(m, 0), m)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    """Return coordinate arrays built from 1-D coordinate vectors.
    Args: *xi: coordinate arrays (flattened); indexing: 'xy' or 'ij'; sparse: bool; copy: ignored.
    Returns: list of Arrays.
    Vs NumPy: the outputs are new arrays, never views (`copy` has no effect).
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.meshgrid(jnp.arange(2), jnp.arange(3))[0]
    Array([[0, 1],
           [0, 1],
           [0, 1]], dtype=int32)
    """
    xi = [asarray(x) for x in xi]
    shapes = [core.get_aval(x).size for x in xi]
    if indexing == "xy" and len(xi) >= 2:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    out = []
    for i, x in enumerate(xi):
        ax = i
        if indexing == "xy" and len(xi) >= 2 and i < 2:
            ax = 1 - i
        sh = [1] * len(xi)
        sh[ax] = core.get_aval(x).size
        y = lax.reshape(lax.reshape(x, (core.get_aval(x).size,)), tuple(sh))
        out.append(y if sparse else broadcast_to_shape(y, tuple(shapes)))
    return out


@_library_jit(static_argnames=("k",))
def diag(v, k=0):
    """Extract a diagonal, or build a diagonal matrix from a 1-D array.
    Args: v: 1-D or 2-D array; k: diagonal offset.
    Returns: 1-D diagonal or 2-D Array.
    Vs NumPy: the extracted diagonal is a new array, not a view.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.diag(jnp.arange(1, 3))
    Array([[1, 0],
           [0, 2]], dtype=int32)
    """
    v = asarray(v)
    if ndim(v) not in (1, 2):
        raise ShapeValueError(f"jnp.diag: input must be 1-D or 2-D, got shape {shape(v)}",
                              hint="use jnp.diagonal(a, offset, axis1, axis2) for other ranks")
    if ndim(v) == 1:
        n = shape(v)[0] + abs(k)
        av = core.get_aval(v)
        # (the mask takes v's weak type: a weak vector's diagonal matrix stays weak, as JAX)
        e = lax.convert_element_type(eye(n, n, k, dtype=av.dtype), av.dtype,
                                     weak_type=av.weak_type)
        padded = lax.pad(v, _pad_value(v), [(0, abs(k), 0)])
        # row i holds v[i] on the diagonal for k >= 0; column j holds v[j] for k < 0
        return multiply(e, reshape(padded, (n, 1) if k >= 0 else (1, n)))
    return diagonal(v, k)
