"""`astjax.nn`: activation functions, softmax family, one_hot, standardize and
`initializers`, with `jax.nn`'s definitions (so values and gradients agree). The
functions JAX jits are `library_jit`s here: an eager call compiles one executable per
signature, not one per operation (issue 14)."""
from __future__ import annotations

import numpy as np

from collections.abc import Sequence

from ..errors import ArgumentValueError, MissingNameError
from .. import core, dtypes, lax
from ..custom_api import custom_jvp as _custom_jvp
from .. import numpy as jnp
from ..numpy import ufuncs as _uf
from ..numpy.ufuncs import asarray_operand, promote_args_inexact, where
from ..numpy.arraylike import check_arraylike
from ..numpy.util import canonicalize_axis, library_jit, static_int
# scipy.special owns the softmax family (nn sits above it and re-exports)
from ..scipy.special import _axes, _log1mexp_rule, logsumexp  # noqa: F401
from ..scipy.special import _log_softmax as log_softmax, _softmax as softmax  # noqa: F401
from . import initializers  # noqa: F401
from .scaled import get_scaled_dot_general_config, scaled_dot_general, scaled_matmul  # noqa: F401
from ..typing import Array, ArrayLike, DTypeLike

__all__ = ["relu", "relu6", "gelu", "sigmoid", "softplus", "silu", "swish", "elu", "celu",
           "selu", "leaky_relu", "hard_tanh", "hard_sigmoid", "hard_silu", "hard_swish",
           "log_sigmoid", "soft_sign", "sparse_plus", "glu", "mish", "softmax",
           "log_softmax", "logsumexp", "one_hot", "standardize", "initializers", "identity",
           "tanh", "squareplus", "sparse_sigmoid", "log1mexp", "logmeanexp",
           "dot_product_attention", "scaled_matmul", "scaled_dot_general",
           "get_scaled_dot_general_config"]


def _inexact(name, x):
    return promote_args_inexact(name, asarray_operand(x))[0]


def identity(x: ArrayLike) -> Array:
    """Return `x` as an array (the identity activation): an array unchanged, a NumPy
    array or scalar as a device array of its canonical dtype (float64 is float32
    without x64), a Python scalar weakly typed. A list is JAX's TypeError."""
    check_arraylike("identity", x)
    if isinstance(x, core.Array):
        return x
    a = core.get_aval(asarray_operand(x))
    return lax.convert_element_type(x, a.dtype, weak_type=a.weak_type)


def _kink_jvp(inside):
    """The tangent rule JAX gives relu / relu6 (`defjvps`): the input's tangent where
    `inside(x)`, 0 elsewhere -- at a kink too (not 1/2) and at NaN."""
    def jvp(primals, tangents):
        (x,), (g,) = primals, tangents
        return _kinked[inside](x), lax.select(inside(x), g, lax.full_like(g, 0))
    return jvp


@library_jit
def _relu(x):
    return _uf.maximum(x, 0)


@library_jit
def _relu6(x):
    return _uf.minimum(_uf.maximum(x, 0), 6.0)


def _above_zero(x):
    return _uf.greater(x, 0)


def _below_six(x):
    return lax.bitwise_and(_uf.greater(x, 0), _uf.less(x, 6))


# JAX's definitions: `custom_jvp` of a jitted max / min, so the program (and XLA's
# cost analysis of it) is one `maximum`, and the derivative is JAX's
_kinked = {_above_zero: _custom_jvp(_relu), _below_six: _custom_jvp(_relu6)}
for _inside, _f in _kinked.items():
    _f.defjvp(_kink_jvp(_inside))


def relu(x: ArrayLike) -> Array:
    """Rectified linear unit, elementwise `max(x, 0)`.

    Unlike a plain `maximum`, the derivative at 0 is 0 (JAX's convention);
    a NaN input stays NaN.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape and dtype.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.nn.relu(jnp.array([-1.0, 0.0, 2.0]))
        Array([0., 0., 2.], dtype=float32)
    """
    return _kinked[_above_zero](asarray_operand(x))


def relu6(x: ArrayLike) -> Array:
    """Elementwise `min(max(x, 0), 6)`, with derivative 0 at both kinks.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _kinked[_below_six](asarray_operand(x))


def sigmoid(x: ArrayLike) -> Array:
    """Logistic sigmoid, elementwise `1 / (1 + exp(-x))`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.nn.sigmoid(jnp.array([0.0, 2.0]))
        Array([0.5     , 0.880797], dtype=float32)
    """
    return lax.logistic(asarray_operand(x))


@library_jit
def log_sigmoid(x: ArrayLike) -> Array:
    """Elementwise `log(sigmoid(x))`, computed as `-softplus(-x)` for stability.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _uf.negative(softplus(_uf.negative(asarray_operand(x))))


@library_jit
def softplus(x: ArrayLike) -> Array:
    """Elementwise `log(1 + exp(x))`, a smooth version of `relu`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.nn.softplus(jnp.array([0.0]))
        Array([0.6931472], dtype=float32)
    """
    return _uf.logaddexp(asarray_operand(x), 0)   # (an int 0, as JAX: int x stays strong)


@library_jit
def sparse_plus(x: ArrayLike) -> Array:
    """Piecewise softplus: 0 for x <= -1, x for x >= 1, `(x + 1)**2 / 4` between.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)
    return where(_uf.less_equal(x, -1.0), 0.0,
                 where(_uf.greater_equal(x, 1.0), x, _uf.multiply(0.25, _uf.square(
                     _uf.add(x, 1.0)))))


@library_jit
def soft_sign(x: ArrayLike) -> Array:
    """Elementwise `x / (|x| + 1)`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)
    return _uf.true_divide(x, _uf.add(_uf.abs(x), 1))


@library_jit
def silu(x: ArrayLike) -> Array:
    """SiLU (also `swish`): elementwise `x * sigmoid(x)`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.nn.silu(jnp.array([0.0, 1.0]))
        Array([0.       , 0.7310586], dtype=float32)
    """
    x = asarray_operand(x)
    return _uf.multiply(x, lax.logistic(x))


swish = silu


@library_jit
def mish(x: ArrayLike) -> Array:
    """Elementwise `x * tanh(softplus(x))`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)
    return _uf.multiply(x, _uf.tanh(softplus(x)))


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """Gaussian error linear unit, elementwise `x * P(N(0, 1) <= x)`.

    Args:
        x: array or scalar input.
        approximate: if true (the default) use the tanh approximation,
            otherwise the exact erf form.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.nn.gelu(jnp.array([0.0, 1.0]))
        Array([0.      , 0.841192], dtype=float32)
        >>> astjax.nn.gelu(jnp.array([0.0, 1.0]), approximate=False)
        Array([0.       , 0.8413447], dtype=float32)
    """
    x = _inexact("gelu", x)
    dt = core.get_aval(x).dtype
    # JAX's constants are strong scalars of x's dtype: the result is never weak
    if approximate:
        c = np.asarray(np.sqrt(2 / np.pi), dt)[()]
        cdf = _uf.multiply(0.5, _uf.add(1.0, _uf.tanh(_uf.multiply(
            c, _uf.add(x, _uf.multiply(0.044715, _uf.power(x, 3)))))))
        return _uf.multiply(x, cdf)
    # erfc(-x / sqrt 2) (not 1 + erf): accurate in the left tail, as JAX's
    half = np.asarray(np.sqrt(0.5), dt)[()]
    return _uf.multiply(_uf.multiply(0.5, x), lax.erfc(_uf.multiply(_uf.negative(x), half)))


@library_jit
def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Exponential linear unit: `x` for x > 0, else `alpha * (exp(x) - 1)`.

    Args:
        x: array or scalar input.
        alpha: scale of the negative branch.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)   # as JAX: promoted by the operations (an int x: weak float)
    safe = where(_uf.greater(x, 0), 0.0, x)
    return where(_uf.greater(x, 0), x, _uf.multiply(alpha, _uf.expm1(safe)))


@library_jit
def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Continuously differentiable ELU: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.

    Args:
        x: array or scalar input.
        alpha: scale of the negative branch.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)   # as JAX: promoted by the operations (an int x: weak float)
    return _uf.add(_uf.maximum(x, 0.0), _uf.multiply(alpha, _uf.expm1(_uf.true_divide(
        _uf.minimum(x, 0.0), alpha))))


@library_jit
def selu(x: ArrayLike) -> Array:
    """Scaled ELU with the fixed self-normalizing `alpha` and `scale` constants.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return _uf.multiply(scale, elu(x, alpha))


@library_jit
def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 0.01) -> Array:
    """Leaky ReLU: `x` for x >= 0, else `negative_slope * x`.

    Args:
        x: array or scalar input.
        negative_slope: slope used for negative inputs (default 0.01).

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.nn.leaky_relu(jnp.array([-1.0, 2.0]))
        Array([-0.01,  2.  ], dtype=float32)
    """
    x = asarray_operand(x)   # as JAX: promoted by the operations (an int x: weak float)
    return where(_uf.greater_equal(x, 0), x, _uf.multiply(negative_slope, x))


@library_jit
def hard_tanh(x: ArrayLike) -> Array:
    """Elementwise clip of `x` to [-1, 1].

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)
    return where(_uf.greater(x, 1), 1, where(_uf.less(x, -1), -1, x))


@library_jit
def hard_sigmoid(x: ArrayLike) -> Array:
    """Piecewise-linear sigmoid, `relu6(x + 3) / 6`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _uf.true_divide(relu6(_uf.add(asarray_operand(x), 3.0)), 6.0)


@library_jit
def hard_silu(x: ArrayLike) -> Array:
    """Hard SiLU (also `hard_swish`): `x * hard_sigmoid(x)`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)
    return _uf.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


class GluSizeError(ArgumentValueError, AssertionError):
    """`glu` of an odd-sized axis: a ValueError, and the AssertionError JAX's `glu`
    raises there (its check is an `assert`)."""


@library_jit(static_argnames=("axis",))
def glu(x: ArrayLike, axis: int | Sequence[int] = -1) -> Array:
    """Gated linear unit: split `x` in two halves along `axis`, return `a * sigmoid(b)`.

    Args:
        x: array input; its size along `axis` must be even.
        axis: the axis to split (default the last).

    Returns:
        An array whose `axis` dimension is half that of `x`.
    """
    x = asarray_operand(x)
    ax = canonicalize_axis(axis, core.get_aval(x).ndim, "glu")
    n = core.get_aval(x).shape[ax]
    if n % 2:
        raise GluSizeError(f"glu: the size of axis {ax} must be even, got {n}",
                           hint="split an axis of even length")
    a, b = jnp.split(x, 2, ax)   # (one `lax.split`, as JAX's)
    return _uf.multiply(a, sigmoid(b))


@library_jit(static_argnames=("num_classes", "dtype", "axis"))
def one_hot(x: ArrayLike, num_classes: int, *, dtype: DTypeLike | None = None,
            axis: int | Sequence[int] = -1) -> Array:
    """x[..., None] == arange(num_classes), as `dtype` (default float)."""
    x = asarray_operand(x)
    num_classes = static_int(num_classes, "one_hot: num_classes")  # 2.5: TypeError, as JAX
    dt = dtypes.canonicalize(dtypes.dtype(float) if dtype is None else dtypes.dtype(dtype))
    xa = core.get_aval(x)
    out_nd = xa.ndim + 1
    ax = canonicalize_axis(axis, out_nd, "one_hot")
    shape = xa.shape[:ax] + (num_classes,) + xa.shape[ax:]
    xb = lax.broadcast_in_dim(x, shape, tuple(i for i in range(out_nd) if i != ax))
    iota = lax.broadcasted_iota(xa.dtype if dtypes.is_int(xa.dtype) else dtypes.int32, shape, ax)
    if not dtypes.is_int(xa.dtype):
        iota = lax.convert_element_type(iota, xa.dtype)
    return lax.convert_element_type(lax.eq(xb, iota), dt)


@library_jit(static_argnames=("axis", "algorithm"))
def standardize(x: ArrayLike, axis: int | Sequence[int] = -1, mean: ArrayLike | None = None,
                variance: ArrayLike | None = None, epsilon: ArrayLike = 1e-05,
                where: ArrayLike | None = None, *, algorithm: str = "fast") -> Array:
    """Normalize `x` to zero mean and unit variance over `axis`.

    Args:
        x: array input.
        axis: axis or axes to reduce over (default the last).
        mean, variance: precomputed statistics; computed from `x` when None.
        epsilon: added to the variance before the reciprocal square root.
        where: optional boolean mask selecting the elements in the statistics.
        algorithm: how a missing `variance` is computed: ``"fast"`` (default) as
            `mean(x**2) - mean**2` clipped at 0, ``"stable"`` as `mean((x - mean)**2)`.

    Returns:
        `(x - mean) / sqrt(variance + epsilon)`, of `x`'s shape.
    """
    x = _inexact("standardize", x)
    axes = _axes(x, axis)
    if mean is None:
        mean = jnp.mean(x, axis=axes, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(_uf.square(_uf.subtract(x, mean)), axis=axes, keepdims=True,
                                where=where)
        elif algorithm == "fast":   # the one-pass form can go below 0: clipped, as JAX
            variance = jnp.clip(_uf.subtract(
                jnp.mean(_uf.square(x), axis=axes, keepdims=True, where=where),
                _uf.square(mean)), 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return _uf.multiply(_uf.subtract(x, mean), lax.rsqrt(_uf.add(variance, epsilon)))


def tanh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic tangent (same as `astjax.numpy.tanh`).

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _uf.tanh(x)


@library_jit
def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """Smooth relu-like function `(x + sqrt(x**2 + b)) / 2`.

    Args:
        x: array or scalar input.
        b: smoothness parameter (default 4).

    Returns:
        An array of `x`'s shape, floating (an integer `x` squares in its own dtype, so
        its square wraps on overflow, as JAX's).
    """
    # as JAX: an integer x squares in its own dtype (wrapping on overflow) before sqrt
    x, b = asarray_operand(x), asarray_operand(b)
    return _uf.true_divide(_uf.add(x, _uf.sqrt(_uf.add(_uf.square(x), b))), 2)


@library_jit
def sparse_sigmoid(x: ArrayLike) -> Array:
    """Piecewise-linear sigmoid `clip(x + 1, 0, 2) / 2`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("sparse_sigmoid", x)
    return _uf.multiply(0.5, _uf.clip(_uf.add(x, 1.0), 0.0, 2.0))


def log1mexp(x: ArrayLike) -> Array:
    """Elementwise `log(1 - exp(-x))` for x > 0, accurate for small and large x.

    The derivative is JAX's `1 / expm1(x)` (-inf at -0.0, inf at 0.0).

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    check_arraylike("log1mexp", x)
    return _log1mexp_rule(asarray_operand(x))


@library_jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x: ArrayLike, axis: int | Sequence[int] | None = None,
               where: ArrayLike | None = None, keepdims: bool = False) -> Array:
    """Stable `log(mean(exp(x)))` over `axis`.

    Args:
        x: array input.
        axis: axis or axes to reduce (default all).
        where: optional boolean mask of elements to include.
        keepdims: keep reduced axes with size 1.

    Returns:
        `logsumexp(x)` minus the log of the number of (selected) elements.
    """
    x = _inexact("logmeanexp", x)
    lse = logsumexp(x, axis=axis, keepdims=keepdims, where=where)
    if where is None:
        xa = core.get_aval(x)
        n = int(np.prod([xa.shape[a] for a in _axes(x, axis)], dtype=np.int64))
        # (log n in the result's dtype, as JAX's: bfloat16 stays bfloat16)
        return _uf.subtract(lse, _uf.log(lax.full((), n, core.get_aval(lse).dtype)))
    n = jnp.sum(jnp.broadcast_to(where, core.get_aval(x).shape), axis=axis, keepdims=keepdims,
                dtype=core.get_aval(x).dtype)
    return _uf.subtract(lse, _uf.log(n))


def _attention_check(t, shape, dtype, name):
    """JAX's checks of one attention operand: rank, dtype, the sizes that are not -1."""
    if t is None:
        return
    a = core.get_aval(t)
    if a.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {a.ndim}")
    if dtype is not None and a.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {a.dtype}")
    if any(n != -1 and d != n for d, n in zip(a.shape, shape)):
        raise ValueError(f"{name} shape should be {list(shape)}: but got {a.shape}")


def _attention_mask(T, S, mask, is_causal, q_len, kv_len, window):
    """The boolean (.., T, S) mask of the kept logits (grouped layout B K G T S), or None."""
    keep = None if mask is None else mask

    def both(m):
        return m if keep is None else _uf.logical_and(keep, m)
    qi = lax.broadcasted_iota(dtypes.int32, (T, S), 0)
    ki = lax.broadcasted_iota(dtypes.int32, (T, S), 1)
    if is_causal:
        keep = both(lax.ge(qi, ki))
    if window is not None:
        left, right = window
        keep = both(_uf.logical_and(_uf.greater_equal(qi, _uf.subtract(ki, right)),
                                    _uf.less_equal(qi, _uf.add(ki, left))))
    for lengths, iota in ((q_len, qi), (kv_len, ki)):
        if lengths is not None:
            n = core.get_aval(lengths).shape[0]
            keep = both(_uf.less(iota, lax.reshape(lengths, (n, 1, 1, 1, 1))))
    return keep


@library_jit(static_argnames=("scale", "is_causal", "local_window_size", "implementation",
                              "return_residual"))
def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike,
                          bias: ArrayLike | None = None, mask: ArrayLike | None = None, *,
                          scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: ArrayLike | None = None,
                          key_value_seq_lengths: ArrayLike | None = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None, return_residual: bool = False):
    """softmax(q k^T * scale + bias, masked) v (JAX's XLA formulation).

    Args:
        query: (B, T, N, H) or (T, N, H) queries.
        key, value: (B, S, K, H) or (S, K, H); N must be a multiple of K (grouped heads).
        bias, mask: optional, broadcastable to (B, N, T, S); `mask` boolean, True = keep.
        scale: the logits' scale (default 1 / sqrt(H)).
        is_causal: keep only key positions <= the query position.
        query_seq_lengths, key_value_seq_lengths: optional int32 (B,) valid lengths.
        local_window_size: (left, right) or one int: keys within the window only.
        implementation: None or ``"xla"`` (``"cudnn"`` is not available).
        return_residual: also return the logsumexp of the masked logits, shape (B, T, N).

    Returns:
        An array of `query`'s shape; with `return_residual`, a pair (output, residual).
    """
    if implementation not in (None, "xla"):
        if implementation == "cudnn":
            raise NotImplementedError("dot_product_attention(implementation='cudnn') needs "
                                      "cuDNN, which astjax does not call; use 'xla' or None")
        raise ValueError(f"Unsupported implementation option: {implementation}")
    out_shape = core.get_aval(asarray_operand(query)).shape

    def four_d(t):
        t = asarray_operand(t)
        n = 4 - core.get_aval(t).ndim
        return lax.expand_dims(t, tuple(range(n))) if n > 0 else t
    q, k, v = four_d(query), four_d(key), four_d(value)
    bias = None if bias is None else four_d(bias)
    mask = None if mask is None else four_d(mask)
    q_len = None if query_seq_lengths is None else asarray_operand(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else asarray_operand(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = core.get_aval(k).shape
    kdt = core.get_aval(k).dtype
    _attention_check(v, [B, S, K, H], kdt, "value")
    _attention_check(q, [B, -1, -1, H], kdt, "query")
    _attention_check(mask, [-1] * 4, np.dtype(bool), "mask")
    _attention_check(bias, [-1] * 4, None, "bias")
    _attention_check(q_len, [B], np.dtype("int32"), "query_seq_lengths")
    _attention_check(kv_len, [B], np.dtype("int32"), "key_value_seq_lengths")
    T, N = core.get_aval(q).shape[1:3]
    if N % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of "
                         f"key/value heads, but got {N} vs {K}")
    G = N // K
    scale = 1.0 / np.sqrt(H) if scale is None else scale

    def grouped(t):  # (b, N or 1, t, s) -> (b, K or 1, G or 1, t, s)
        b, n, tt, ss = core.get_aval(t).shape
        return lax.reshape(t, (b, 1, 1, tt, ss) if n == 1 else (b, K, G, tt, ss))
    ldt = jnp.promote_types(kdt, dtypes.float32)
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", lax.reshape(q, (B, T, K, G, H)), k,
                        preferred_element_type=ldt)
    logits = _uf.multiply(logits, jnp.array(scale, dtype=ldt))
    if bias is not None:
        logits = _uf.add(logits, grouped(bias)).astype(ldt)
    keep = _attention_mask(T, S, None if mask is None else grouped(mask), is_causal,
                           q_len, kv_len, local_window_size)
    if keep is not None:
        big_neg = -0.7 * min(float(dtypes.finfo(ldt).max), float(dtypes.finfo(np.float32).max))
        logits = where(keep, logits, jnp.array(big_neg, dtype=ldt))
    logits = lax.convert_element_type(logits, dtypes.float32)
    probs = lax.convert_element_type(softmax(logits, axis=-1), kdt)
    out = jnp.einsum("BKGTS,BSKH->BTKGH", probs, v)
    if q_len is not None:
        valid = _uf.less(lax.broadcasted_iota(dtypes.int32, (1, T, 1, 1, 1), 1),
                         lax.reshape(q_len, (B, 1, 1, 1, 1)))
        out = _uf.multiply(out, valid.astype(core.get_aval(out).dtype))
    out = lax.reshape(out, out_shape)
    if not return_residual:
        return out
    lse = lax.convert_element_type(logsumexp(logits, axis=-1), kdt)   # B K G T
    lse = lax.transpose(lax.reshape(lse, (B, N, T)), (0, 2, 1))
    return out, lax.stop_gradient(lax.reshape(lse, out_shape[:-1]))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise MissingNameError(f"astjax.nn.{name} is not implemented",
                           hint="docs/api.md lists what is implemented")
