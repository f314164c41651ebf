"""Seeding, splitting and folding typed keys, and the basic samplers of `astjax.random`
(bits, uniform, normal, bernoulli, randint, choice, permutation, categorical, gumbel,
...), each JAX's algorithm step for step. Every sampler takes one typed key and draws
its bits through the key's implementation (`key_array.random_bits`), so the same code
serves threefry2x32, rbg, unsafe_rbg and user-defined implementations.
`distributions` builds the rest on these."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import core, dtypes, lax
from ..errors import (ArgumentError, ArgumentTypeError, ArgumentValueError, DTypeError,
                      ScalarOverflowError, ShapeError, ShapeValueError)
from ..numpy.util import canonicalize_axis, library_jit, static_int, static_shape as _np_shape
from ..primitives.prng_ops import random_seed
from .. import numpy as jnp
from ..numpy.arraylike import check_arraylike as _check_arraylike
from ..numpy.operands import broadcast_shapes, promote_args_inexact
from . import key_array as _ka
from .key_array import PRNGKeyArray
from ..typing import Array, ArrayLike, DTypeLike

__all__ = ["split", "fold_in", "bits", "uniform", "normal", "bernoulli", "randint", "choice",
           "permutation", "truncated_normal", "categorical", "gumbel", "exponential",
           "laplace", "logistic", "rademacher"]


def seed_keys(seed, impl):
    """One typed key of `impl` from the integer scalar `seed`, as JAX's `random_seed`:
    a Python int is read as int64 (outside its range JAX's OverflowError), then
    canonicalized (wrapping to int32 without x64); staged, it is one `random_seed`
    equation on that constant, as in JAX's jaxprs."""
    if isinstance(seed, int) and not isinstance(seed, bool):
        try:
            seed = np.int64(seed)
        except OverflowError as e:
            raise ScalarOverflowError(str(e), hint="a PRNG seed is a 64-bit integer") from None
    if not hasattr(seed, "aval"):
        seed = jnp.asarray(seed)
    if core.current_builder() is not None:    # (staged on the constant, as JAX does)
        return PRNGKeyArray(random_seed(seed, impl), impl)
    return _seed(seed, impl)



def shape_arg(shape, what="shape"):
    """A sampler's `shape` argument as a tuple of ints. None is JAX's TypeError here
    (a function whose shape defaults to None reads None itself, before this)."""
    if shape is None:
        raise ArgumentTypeError(f"{what} must be an integer or a sequence of integers, got "
                                "None: 'NoneType' object is not iterable",
                                hint="pass a tuple of integers (() for a single value)")
    return _np_shape(shape, what)

@library_jit(static_argnums=(1,))
def _seed(seed, impl):
    return PRNGKeyArray(random_seed(seed, impl), impl)


@library_jit(static_argnums=(1,))
def _split(key, shape):
    return _ka.split(key, shape)


def split(key: ArrayLike, num: int | tuple[int, ...] = 2) -> Array:
    """`num` (an int or a shape) new typed keys from one typed key, stacked along new
    leading axes."""
    key = _ka.check_key(key, "split")
    return _split(key, shape_arg(num, "the number of keys"))


@library_jit
def _fold_in(key, data):
    return _ka.fold_in(key, data)


def fold_in(key: ArrayLike, data: ArrayLike) -> Array:
    """A new typed key from one typed key and the integer scalar `data`."""
    key = _ka.check_key(key, "fold_in")
    if np.ndim(data) if not hasattr(data, "aval") else core.get_aval(data).ndim:
        raise ShapeError("fold_in takes a scalar", hint="use astjax.vmap to batch")
    if isinstance(data, str):   # (JAX's `jnp.asarray(data, 'uint32')` parses it, as NumPy)
        try:
            data = np.asarray(data, np.uint32)
        except ValueError as e:
            raise ArgumentValueError(f"fold_in: {e}", hint="pass an integer") from None
    if isinstance(data, (int, np.integer)):
        data = np.uint32(int(data) & 0xFFFFFFFF)
    elif core.get_aval(data).dtype != dtypes.uint32:
        data = lax.convert_element_type(data, dtypes.uint32)
    return _fold_in(key, data)


@library_jit(static_argnums=(1, 2))
def _bits(key, bit_width, shape):
    return _ka.random_bits(key, bit_width, shape)


def bits(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Uniform random bits of an unsigned dtype (default uint32, uint64 under x64)."""
    key = _ka.check_key(key, "bits")
    dt = dtypes.canonicalize(dtypes.uint64 if dtype is None else dtypes.dtype(dtype),
                             warn=dtype is not None)
    if not dtypes.issubdtype(dt, np.unsignedinteger):
        raise ArgumentValueError(   # (JAX's ValueError)
            f"dtype argument to `bits` must be an unsigned int dtype, got {dt}",
            hint="pass an unsigned dtype (jnp.uint8, uint16, uint32 or uint64) and convert "
                 "the bits afterwards")
    return _bits(key, dt.itemsize * 8, shape_arg(shape))


def _float_dtype(dtype, name, kinds=(np.floating,)):
    dt = dtypes.canonicalize(dtypes.dtype(float) if dtype is None else dtypes.dtype(dtype),
                             warn=dtype is not None)
    if not any(dtypes.issubdtype(dt, k) for k in kinds):
        what = "float or complex" if np.complexfloating in kinds else "float"
        raise ArgumentValueError(f"dtype argument to `{name}` must be a {what} dtype, got {dt}",
                                 hint=f"random.{name} samples {what} values; pass e.g. "
                                      "dtype=jnp.float32 and convert the result")
    return dt


def _check_shape(name, shape, *param_shapes, error=None):
    """Parameter shapes must broadcast to `shape` exactly: JAX's ValueError (`error`
    instead where JAX's own check is another: `uniform`'s arithmetic's TypeError)."""
    if param_shapes:
        try:
            b = broadcast_shapes(shape, *param_shapes)
        except (ShapeError, ShapeValueError):
            b = None
        if b != tuple(shape):
            raise (error or ShapeValueError)(
                f"`random.{name}`: shape {tuple(shape)} is not compatible with parameter "
                f"shapes {', '.join(map(str, param_shapes))}",
                hint="parameter shapes must broadcast to the `shape` argument exactly")


def _broadcast_to_rank(x, rank):
    nd = core.get_aval(x).ndim
    return x if nd >= rank else lax.reshape(x, (1,) * (rank - nd) + core.get_aval(x).shape)


def _uniform_impl(key, minval, maxval, shape, dtype):
    _check_shape("uniform", shape, np.shape(minval) if not hasattr(minval, "aval") else
                 core.get_aval(minval).shape,
                 np.shape(maxval) if not hasattr(maxval, "aval") else core.get_aval(maxval).shape,
                 error=ShapeError)
    minval = _broadcast_to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = _broadcast_to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    fi = dtypes.finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    b = _ka.random_bits(key, rng_bits, shape)
    uint = np.dtype(f"uint{nbits}")
    if rng_bits != nbits:
        b = lax.convert_element_type(b, uint)
    fb = lax.shift_right_logical(b, np.asarray(rng_bits - nmant, uint)[()])
    fb = lax.bitwise_or(fb, np.array(1.0, dtype).view(uint)[()])
    floats = lax.sub(lax.bitcast_convert_type(fb, dtype), np.asarray(1.0, dtype)[()])
    scaled = jnp.add(jnp.multiply(floats, jnp.subtract(maxval, minval)), minval)
    return jnp.maximum(minval, lax.reshape(scaled, shape))


_uniform = library_jit(_uniform_impl, static_argnums=(3, 4))


def uniform(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None,
            minval: ArrayLike = 0.0, maxval: ArrayLike = 1.0) -> Array:
    """Uniform values in [minval, maxval).

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        shape: output shape.
        dtype: a floating dtype (default float32, float64 under x64).
        minval, maxval: the bounds (broadcastable to `shape`).

    Returns:
        An array of `shape` and `dtype`; the same key always gives the same values.

    Example:
        >>> import astjax
        >>> astjax.random.uniform(astjax.random.key(0), (3,))
        Array([0.947667  , 0.9785799 , 0.33229148], dtype=float32)
    """
    key = _ka.check_key(key, "uniform")
    return _uniform(key, minval, maxval, shape_arg(shape), _float_dtype(dtype, "uniform"))


def _normal_real(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform_impl(key, lo, np.array(1.0, dtype), shape, dtype)
    return lax.mul(np.asarray(np.sqrt(2), dtype)[()], lax.erf_inv(u))


@library_jit(static_argnums=(1, 2))
def _normal(key, shape, dtype):
    if dtypes.issubdtype(dtype, np.complexfloating):
        k_re, k_im = _split_pair(key)
        real = np.dtype(np.array(0, dtype).real.dtype)
        re = lax.convert_element_type(_normal_real(k_re, shape, real), dtype)
        im = lax.convert_element_type(_normal_real(k_im, shape, real), dtype)
        return jnp.true_divide(jnp.add(re, jnp.multiply(1j, im)), np.asarray(np.sqrt(2), dtype)[()])
    return _normal_real(key, shape, dtype)


def normal(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Standard normal values.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        shape: output shape.
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`; the same key always gives the same values.

    Example:
        >>> import astjax
        >>> astjax.random.normal(astjax.random.key(0), (3,))
        Array([ 1.6226422 ,  2.0252647 , -0.43359444], dtype=float32)
    """
    key = _ka.check_key(key, "normal")
    return _normal(key, shape_arg(shape),
                   _float_dtype(dtype, "normal", (np.floating, np.complexfloating)))


def _split_pair(key):
    ks = _ka.split(key, (2,))
    return ks[0], ks[1]


@library_jit(static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    sqrt2 = np.asarray(np.sqrt(2), dtype)[()]
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    u = _uniform_impl(key, a, b, shape, dtype)
    out = lax.mul(sqrt2, lax.erf_inv(u))
    return jnp.clip(out, lax.nextafter(lower, np.asarray(np.inf, dtype)[()]),
                    lax.nextafter(upper, np.asarray(-np.inf, dtype)[()]))


def truncated_normal(key: ArrayLike, lower: ArrayLike, upper: ArrayLike,
                     shape: Sequence[int] | None = None, dtype: DTypeLike | None = None) -> Array:
    """Normal values truncated to (lower, upper)."""
    key = _ka.check_key(key, "truncated_normal")
    dt = _float_dtype(dtype, "truncated_normal")
    ps = [np.shape(v) if not hasattr(v, "aval") else core.get_aval(v).shape for v in (lower, upper)]
    if shape is None:
        shape = broadcast_shapes(*ps)
    else:
        shape = shape_arg(shape)
        _check_shape("truncated_normal", shape, *ps)
    return _truncated_normal(key, lower, upper, shape, dt)


def bernoulli(key: ArrayLike, p: ArrayLike = np.float32(0.5), shape: Sequence[int] | None = None,
              mode: str = 'low') -> Array:
    """Booleans that are True with probability p."""
    key = _ka.check_key(key, "bernoulli")
    dt = dtypes.dtype(p) if not dtypes.is_weak_scalar(p) else dtypes.canonicalize(
        dtypes.python_scalar_dtype(p))
    dt = dtypes.canonicalize(dt)
    if not dtypes.is_float(dt):
        raise DTypeError(f"bernoulli probability `p` must have a floating dtype, got {dt}")
    pshape = core.get_aval(p).shape if hasattr(p, "aval") else np.shape(p)
    shape = tuple(pshape) if shape is None else shape_arg(shape)
    _check_shape("bernoulli", shape, pshape)
    return _bernoulli(key, p, shape, dt, mode)


@library_jit(static_argnums=(2, 3, 4))
def _bernoulli(key, p, shape, dtype, mode):
    p = lax.convert_element_type(p, dtype)
    if mode == "high":
        u = _uniform_impl(key, 0.0, 1.0, (2,) + shape, dtype)
        u1, u2 = lax.index_in_dim(u, 0, 0, False), lax.index_in_dim(u, 1, 0, False)
        u2 = jnp.multiply(u2, 2.0 ** -dtypes.finfo(dtype).nmant)
        return jnp.less(u2, jnp.subtract(p, u1))
    return jnp.less(_uniform_impl(key, 0.0, 1.0, shape, dtype), p)


def _convert_and_clip_integer(val, dtype):
    vd = core.get_aval(val).dtype
    lo = max(int(dtypes.iinfo(dtype).min), int(dtypes.iinfo(vd).min))
    hi = min(int(dtypes.iinfo(dtype).max), int(dtypes.iinfo(vd).max))
    return lax.convert_element_type(
        jnp.clip(val, np.asarray(lo, vd)[()], np.asarray(hi, vd)[()]), dtype)


@library_jit(static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    idt = dtypes.canonicalize(dtypes.dtype(int))
    if not dtypes.is_int(core.get_aval(minval).dtype):
        minval = lax.convert_element_type(minval, idt)
    if not dtypes.is_int(core.get_aval(maxval).dtype):
        maxval = lax.convert_element_type(maxval, idt)
    mdt = core.get_aval(maxval).dtype
    out_of_range = jnp.greater(maxval, _convert_and_clip_integer(
        jnp.asarray(np.asarray(dtypes.iinfo(dtype).max, dtype)), mdt))
    minval = _broadcast_to_rank(_convert_and_clip_integer(minval, dtype), len(shape))
    maxval = _broadcast_to_rank(_convert_and_clip_integer(maxval, dtype), len(shape))
    out_of_range = _broadcast_to_rank(out_of_range, len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = _split_pair(key)
    higher = _ka.random_bits(k1, nbits, shape)
    lower = _ka.random_bits(k2, nbits, shape)
    udt = np.dtype(f"uint{nbits}")
    span = lax.convert_element_type(jnp.subtract(maxval, minval), udt)
    span = jnp.where(jnp.less_equal(maxval, minval), np.asarray(1, udt)[()], span)
    span = jnp.where(jnp.logical_and(out_of_range, jnp.greater(maxval, minval)),
                     jnp.add(span, np.asarray(1, udt)[()]), span)
    span = jnp.broadcast_to(span, shape)
    mult = lax.rem(lax.full_like(span, 2 ** (nbits // 2)), span)
    mult = lax.rem(lax.mul(mult, mult), span)
    off = lax.add(lax.mul(lax.rem(higher, span), mult), lax.rem(lower, span))
    off = lax.rem(off, span)
    return jnp.add(minval, lax.convert_element_type(off, dtype))


def randint(key: ArrayLike, shape: Sequence[int], minval: ArrayLike, maxval: ArrayLike,
            dtype: DTypeLike | None = None) -> Array:
    """Uniform integers in [minval, maxval)."""
    key = _ka.check_key(key, "randint")
    dt = dtypes.canonicalize(dtypes.dtype(int) if dtype is None else dtypes.dtype(dtype),
                             warn=dtype is not None)
    if not dtypes.is_int(dt):
        raise DTypeError(f"randint only accepts integer dtypes, got {dt}")
    shape = shape_arg(shape)
    ps = [core.get_aval(v).shape if hasattr(v, "aval") else np.shape(v) for v in (minval, maxval)]
    _check_shape("randint", shape, *ps)
    info = dtypes.iinfo(dt)
    if info.bits < 32:
        minval = jnp.clip(jnp.asarray(minval).astype("int32"), int(info.min), int(info.max))
        maxval = jnp.clip(jnp.asarray(maxval).astype("int32"), int(info.min), int(info.max) + 1)
        return lax.convert_element_type(_randint(key, minval, maxval, shape, dtypes.int32), dt)
    return _randint(key, minval, maxval, shape, dt)


def _shuffle(key, x, axis):
    size = core.get_aval(x).size
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, sub = _split_pair(key)
        sort_keys = _ka.random_bits(sub, 32, core.get_aval(x).shape)
        order = jnp.argsort(sort_keys, axis=axis, stable=True)
        x = jnp.take_along_axis(x, order, axis=axis)
    return x


@library_jit(static_argnums=(1,))
def _permute_range(key, n):
    return _shuffle(key, lax.iota(dtypes.canonicalize(dtypes.dtype(int)), n), 0)


@library_jit(static_argnums=(2, 3))
def _permutation(key, x, axis, independent):
    if independent or core.get_aval(x).ndim == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, lax.iota(dtypes.canonicalize(dtypes.dtype(int)),
                                 core.get_aval(x).shape[axis]), 0)
    return jnp.take(x, ind, axis=axis)


def permutation(key: ArrayLike, x: ArrayLike, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of `arange(x)` (int x) or of x's entries along `axis`."""
    key = _ka.check_key(key, "permutation")
    _check_arraylike("permutation", x)
    # (as JAX's, the axis is checked first, against one dimension for an integer x)
    axis = canonicalize_axis(axis, np.ndim(x) or 1, "random.permutation")
    if not hasattr(x, "aval") and np.ndim(x) == 0:
        n = static_int(x, "the argument x of random.permutation")
        return _permute_range(key, n)
    x = jnp.asarray(x)
    nd = core.get_aval(x).ndim
    if nd == 0:
        return _permute_range(key, static_int(x, "the argument x of random.permutation"))
    return _permutation(key, x, axis, bool(independent))


def choice(key: ArrayLike, a: ArrayLike, shape: Sequence[int] = (), replace: bool = True,
           p: ArrayLike | None = None, axis: int = 0, mode: str | None = None) -> Array:
    """Random samples from `a` (or `arange(a)`), with or without replacement."""
    key = _ka.check_key(key, "choice")
    if not isinstance(shape, (tuple, list)):
        raise ArgumentTypeError(f"shape argument of random.choice must be a sequence, got {shape}")
    shape = shape_arg(shape)
    arr = jnp.asarray(a)
    aval = core.get_aval(arr)
    if aval.ndim == 0:   # JAX's `int(a)`: a float population 5.0 is range(5)
        n_inputs = _int_now(a, "the argument a of random.choice")
    else:
        axis = canonicalize_axis(axis, aval.ndim, "random.choice")
        n_inputs = aval.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=aval.dtype)
    if n_inputs <= 0:
        raise ArgumentValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ArgumentValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                            f"(size {n_inputs}) when 'replace=False'")
    idt = dtypes.canonicalize(dtypes.dtype(int))
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if aval.ndim == 0 else jnp.take(arr, ind, axis)
        else:
            perm = permutation(key, n_inputs if aval.ndim == 0 else arr, axis)
            result = lax.slice_in_dim(perm, 0, n_draws, axis=axis if aval.ndim else 0)
    else:
        [p_arr] = promote_args_inexact("choice", jnp.asarray(p))
        if core.get_aval(p_arr).shape != (n_inputs,):
            raise ShapeValueError(   # (JAX's ValueError)
                f"p must be None or a 1D vector with the same size as a.shape[axis]. p has "
                f"shape {core.get_aval(p_arr).shape} and a.shape[axis] is {n_inputs}.",
                hint="pass one probability per choice")
        if replace:
            p_cuml = jnp.cumsum(p_arr)
            pdt = core.get_aval(p_cuml).dtype
            r = jnp.multiply(p_cuml[-1], jnp.subtract(1, uniform(key, shape, dtype=pdt)))
            ind = jnp.searchsorted(p_cuml, r).astype(idt)
        else:
            g = jnp.add(gumbel(key, (n_inputs,), dtype=core.get_aval(p_arr).dtype, mode=mode),
                        jnp.log(p_arr))
            ind = jnp.argsort(jnp.negative(g), stable=True)[:n_draws].astype(idt)
        result = ind if aval.ndim == 0 else jnp.take(arr, ind, axis)
    out_shape = shape if aval.ndim == 0 else aval.shape[:axis] + tuple(shape) + aval.shape[axis + 1:]
    return jnp.reshape(result, out_shape)


def _int_now(v, what):
    """`int(v)` now, as JAX concretizes a 0-d value (a float truncates): a staged value
    is static_int's TracerIntegerConversionError, a non-number an ArgumentTypeError."""
    if isinstance(v, core.Tracer):
        return static_int(v, what)
    try:
        return int(v)
    except (TypeError, ValueError) as e:
        raise ArgumentTypeError(f"{what} must be a number, got {v!r:.60} ({e})") from None


@library_jit(static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    info = dtypes.finfo(dtype)
    if mode in ("high", "highest"):
        u = _uniform_impl(key, 0.0, 1.0, (2,) + shape, dtype)
        high, low = lax.index_in_dim(u, 0, 0, False), lax.index_in_dim(u, 1, 0, False)
        x = jnp.where(jnp.greater_equal(high, 0.5), high,
                      jnp.add(jnp.add(high, jnp.multiply(2.0 ** -info.nmant, low)),
                              float(info.tiny)))
        return jnp.negative(jnp.log(jnp.negative(jnp.log1p(jnp.negative(x)))))
    u = _uniform_impl(key, np.asarray(info.tiny, dtype), 1.0, shape, dtype)
    return jnp.negative(jnp.log(jnp.negative(jnp.log(u))))


def gumbel(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None,
           mode: str | None = None) -> Array:
    """Standard Gumbel values."""
    key = _ka.check_key(key, "gumbel")
    return _gumbel(key, shape_arg(shape), _float_dtype(dtype, "gumbel"), mode or "low")


def categorical(key: ArrayLike, logits: ArrayLike, axis: int = -1,
                shape: Sequence[int] | None = None, replace: bool = True,
                mode: str | None = None) -> Array:
    """Samples of category indices with (unnormalized) log-probabilities `logits`."""
    key = _ka.check_key(key, "categorical")
    logits = jnp.asarray(logits)
    la = core.get_aval(logits)
    axis = canonicalize_axis(axis, max(la.ndim, 1), "random.categorical")
    batch_shape = tuple(d for i, d in enumerate(la.shape) if i != axis)
    shape = batch_shape if shape is None else shape_arg(shape)
    _check_shape("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        ax = axis - la.ndim
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(ax % la.ndim, la.shape[ax])
        g = gumbel(key, (*prefix, *logits_shape), la.dtype, mode=mode)
        return jnp.argmax(jnp.add(g, lax.reshape(logits, (1,) * len(prefix) + la.shape)), axis=ax)
    logits = jnp.add(logits, gumbel(key, la.shape, la.dtype, mode=mode))
    k = math.prod(prefix)
    if k > la.shape[axis]:
        raise ArgumentValueError(f"Number of samples without replacement ({k}) cannot exceed "
                            f"number of categories ({la.shape[axis]}).")
    # JAX's top_k of the categories (int32 indices, whatever x64 says), then one
    # reshape bringing the k draws first
    idx = lax.top_k(jnp.moveaxis(logits, axis, -1), k)[1]
    nd = core.get_aval(idx).ndim
    return lax.reshape(idx, shape, (nd - 1, *range(nd - 1)))


@library_jit(static_argnums=(1, 2))
def _exponential(key, shape, dtype):
    u = _uniform_impl(key, 0.0, 1.0, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


def exponential(key: ArrayLike, shape: Sequence[int] = (),
                dtype: DTypeLike | None = None) -> Array:
    """Standard exponential values."""
    key = _ka.check_key(key, "exponential")
    return _exponential(key, shape_arg(shape), _float_dtype(dtype, "exponential"))


@library_jit(static_argnums=(1, 2))
def _laplace(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform_impl(key, lo, 1.0, shape, dtype)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def laplace(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Samples from the standard Laplace distribution.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        shape: output shape.
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    key = _ka.check_key(key, "laplace")
    return _laplace(key, shape_arg(shape), _float_dtype(dtype, "laplace"))


@library_jit(static_argnums=(1, 2))
def _logistic(key, shape, dtype):
    x = _uniform_impl(key, np.asarray(dtypes.finfo(dtype).tiny, dtype), 1.0, shape, dtype)
    return jnp.subtract(jnp.log(x), jnp.log1p(jnp.negative(x)))


def logistic(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Samples from the standard logistic distribution.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        shape: output shape.
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    key = _ka.check_key(key, "logistic")
    return _logistic(key, shape_arg(shape), _float_dtype(dtype, "logistic"))


def rademacher(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Random signs: -1 or 1, each with probability 1/2.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        shape: output shape.
        dtype: result dtype (default int32).

    Returns:
        An array of `shape` and `dtype`.

    Example:
        >>> import astjax
        >>> astjax.random.rademacher(astjax.random.key(0), (3,))
        Array([-1, -1,  1], dtype=int32)
    """
    key = _ka.check_key(key, "rademacher")
    dt = dtypes.canonicalize(dtypes.dtype(int) if dtype is None else dtypes.dtype(dtype))
    b = bernoulli(key, 0.5, shape=shape_arg(shape))
    return lax.convert_element_type(lax.sub(lax.mul(lax.convert_element_type(b, dt),
                                                    np.asarray(2, dt)[()]),
                                            np.asarray(1, dt)[()]), dt)
