"""`astjax.nn`: activation functions, softmax family, one_hot, standardize and
`initializers`, with `jax.nn`'s definitions (so values and gradients agree)."""
from __future__ import annotations

import numpy as np

from collections.abc import Sequence

from ..errors import MissingNameError
from .. import core, dtypes, lax
from .. import numpy as jnp
from ..numpy import ufuncs as _uf
from ..numpy.ufuncs import asarray_operand, promote_args_inexact, where
from ..numpy.util import canonicalize_axis, static_int
# scipy.special owns the softmax family (nn sits above it and re-exports)
from ..scipy.special import _axes, logsumexp  # noqa: F401
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
    """Return `x` unchanged, as an array (the identity activation)."""
    return asarray_operand(x)


def _clip_kink(x, lo, hi=None):
    """x clipped to [lo, hi] whose derivative is 1 strictly inside and 0 at the kinks and
    outside (JAX's relu/relu6 derivatives; max/min would give 1/2 at a kink); NaN stays
    NaN, with derivative 0."""
    inside = _uf.greater(x, lo) if hi is None else lax.bitwise_and(_uf.greater(x, lo),
                                                                   _uf.less(x, hi))
    edge = where(_uf.isnan(x), lax.stop_gradient(x), _uf.maximum(lax.stop_gradient(x), lo))
    if hi is not None:
        edge = _uf.minimum(edge, hi)
    return where(inside, x, edge)


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
    return _clip_kink(asarray_operand(x), 0)


def relu6(x: ArrayLike) -> Array:
    """Elementwise `min(max(x, 0), 6)`, with derivative 0 at both kinks.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _clip_kink(asarray_operand(x), 0, 6.0)


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
    return lax.logistic(_inexact("sigmoid", x))


def log_sigmoid(x: ArrayLike) -> Array:
    """Elementwise `log(sigmoid(x))`, computed as `-softplus(-x)` for stability.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _uf.negative(softplus(_uf.negative(_inexact("log_sigmoid", x))))


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
    return _uf.logaddexp(_inexact("softplus", x), 0.0)


def sparse_plus(x: ArrayLike) -> Array:
    """Piecewise softplus: 0 for x <= -1, x for x >= 1, `(x + 1)**2 / 4` between.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("sparse_plus", x)
    return where(_uf.less_equal(x, -1.0), 0.0,
                 where(_uf.greater_equal(x, 1.0), x, _uf.multiply(0.25, _uf.square(
                     _uf.add(x, 1.0)))))


def soft_sign(x: ArrayLike) -> Array:
    """Elementwise `x / (|x| + 1)`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("soft_sign", x)
    return _uf.true_divide(x, _uf.add(_uf.abs(x), 1.0))


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
    x = _inexact("silu", x)
    return _uf.multiply(x, lax.logistic(x))


swish = silu


def mish(x: ArrayLike) -> Array:
    """Elementwise `x * tanh(softplus(x))`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("mish", x)
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
    if approximate:
        c = np.sqrt(2 / np.pi)
        cdf = _uf.multiply(0.5, _uf.add(1.0, _uf.tanh(_uf.multiply(
            c, _uf.add(x, _uf.multiply(0.044715, _uf.power(x, 3)))))))
        return _uf.multiply(x, cdf)
    return _uf.true_divide(_uf.multiply(x, _uf.add(lax.erf(_uf.true_divide(x, np.sqrt(2))),
                                                   1.0)), 2.0)


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Exponential linear unit: `x` for x > 0, else `alpha * (exp(x) - 1)`.

    Args:
        x: array or scalar input.
        alpha: scale of the negative branch.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("elu", x)
    safe = where(_uf.greater(x, 0), 0.0, x)
    return where(_uf.greater(x, 0), x, _uf.multiply(alpha, _uf.expm1(safe)))


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Continuously differentiable ELU: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.

    Args:
        x: array or scalar input.
        alpha: scale of the negative branch.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("celu", x)
    return _uf.add(_uf.maximum(x, 0.0), _uf.multiply(alpha, _uf.expm1(_uf.true_divide(
        _uf.minimum(x, 0.0), alpha))))


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
    x = _inexact("leaky_relu", x)
    return where(_uf.greater_equal(x, 0), x, _uf.multiply(negative_slope, x))


def hard_tanh(x: ArrayLike) -> Array:
    """Elementwise clip of `x` to [-1, 1].

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = asarray_operand(x)
    return where(_uf.greater(x, 1), 1, where(_uf.less(x, -1), -1, x))


def hard_sigmoid(x: ArrayLike) -> Array:
    """Piecewise-linear sigmoid, `relu6(x + 3) / 6`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _uf.true_divide(relu6(_uf.add(_inexact("hard_sigmoid", x), 3.0)), 6.0)


def hard_silu(x: ArrayLike) -> Array:
    """Hard SiLU (also `hard_swish`): `x * hard_sigmoid(x)`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("hard_silu", x)
    return _uf.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


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
        raise ValueError("glu: the axis size must be even")
    a = lax.slice_in_dim(x, 0, n // 2, axis=ax)
    b = lax.slice_in_dim(x, n // 2, n, axis=ax)
    return _uf.multiply(a, sigmoid(b))


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


def standardize(x: ArrayLike, axis: int | Sequence[int] = -1, mean: ArrayLike | None = None,
                variance: ArrayLike | None = None, epsilon: ArrayLike = 1e-05,
                where: ArrayLike | None = None) -> Array:
    """Normalize `x` to zero mean and unit variance over `axis`.

    Args:
        x: array input.
        axis: axis or axes to reduce over (default the last).
        mean, variance: precomputed statistics; computed from `x` when None.
        epsilon: added to the variance before the reciprocal square root.
        where: optional boolean mask selecting the elements in the statistics.

    Returns:
        `(x - mean) / sqrt(variance + epsilon)`, of `x`'s shape.
    """
    x = _inexact("standardize", x)
    axes = _axes(x, axis)
    if mean is None:
        mean = jnp.mean(x, axis=axes, keepdims=True, where=where)
    if variance is None:
        variance = _uf.subtract(jnp.mean(_uf.square(x), axis=axes, keepdims=True, where=where),
                                _uf.square(mean))
    return _uf.multiply(_uf.subtract(x, mean), lax.rsqrt(_uf.add(variance, epsilon)))



def tanh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic tangent (same as `astjax.numpy.tanh`).

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    return _uf.tanh(x)


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """Smooth relu-like function `(x + sqrt(x**2 + b)) / 2`.

    Args:
        x: array or scalar input.
        b: smoothness parameter (default 4).

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("squareplus", x)
    return _uf.true_divide(_uf.add(x, _uf.sqrt(_uf.add(_uf.square(x), b))), 2.0)


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

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape (promoted to a floating dtype if needed).
    """
    x = _inexact("log1mexp", x)
    return where(_uf.less(x, np.log(2.0)), _uf.log(_uf.negative(_uf.expm1(_uf.negative(x)))),
                 _uf.log1p(_uf.negative(_uf.exp(_uf.negative(x)))))


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
        return _uf.subtract(lse, np.log(float(n)))
    n = jnp.sum(jnp.broadcast_to(where, core.get_aval(x).shape), axis=axis, keepdims=keepdims,
                dtype=core.get_aval(x).dtype)
    return _uf.subtract(lse, _uf.log(n))


def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike,
                          bias: ArrayLike | None = None, mask: ArrayLike | None = None, *,
                          scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: ArrayLike | None = None,
                          key_value_seq_lengths: ArrayLike | None = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None) -> Array:
    """softmax(q k^T * scale + bias, masked) v for (B, T, N, H) or (T, N, H) inputs
    (the XLA formulation of jax.nn.dot_product_attention)."""
    q, k, v = (asarray_operand(t) for t in (query, key, value))
    batched = core.get_aval(q).ndim == 4
    if not batched:
        q, k, v = (lax.expand_dims(t, (0,)) for t in (q, k, v))
    h = core.get_aval(q).shape[-1]
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    logits = jnp.einsum("BTNH,BSNH->BNTS", q, k)
    logits = _uf.multiply(logits, scale)
    if bias is not None:
        logits = _uf.add(logits, bias if batched else lax.expand_dims(asarray_operand(bias), (0,))
                         if core.get_aval(asarray_operand(bias)).ndim == 3 else bias)
    big_neg = float(dtypes.finfo(core.get_aval(logits).dtype).min)
    if mask is not None:
        m = asarray_operand(mask)
        if not batched and core.get_aval(m).ndim == 3:
            m = lax.expand_dims(m, (0,))
        logits = where(m, logits, big_neg)
    T, S = core.get_aval(logits).shape[-2:]
    if is_causal:
        causal = lax.ge(lax.broadcasted_iota(dtypes.int32, (T, S), 0),
                        lax.broadcasted_iota(dtypes.int32, (T, S), 1))
        logits = where(causal, logits, big_neg)
    dt = core.get_aval(logits).dtype
    probs = softmax(lax.convert_element_type(logits, dtypes.float32), axis=-1)
    probs = lax.convert_element_type(probs, dt)
    out = jnp.einsum("BNTS,BSNH->BTNH", probs, v)
    return out if batched else lax.squeeze(out, (0,))

def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise MissingNameError(f"astjax.nn.{name} is not implemented",
                           hint="docs/api.md lists what is implemented")
