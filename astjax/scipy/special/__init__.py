"""`astjax.scipy.special`: logsumexp, erf/erfc/erfinv, gammaln, digamma, expit,
logit, xlogy, xlog1py, and a few relatives — on the lax special-function
primitives (the same CHLO ops JAX lowers to). The functions JAX jits (`gammasgn`,
`expi`, `expn`, `exp1`'s `expn`, `sici`, `hyp1f1`, `hyp2f1`, `bessel_jn`, `log_softmax`)
are `library_jit`s: an eager call compiles once per signature; the rest run op by op,
as JAX's do (so their values keep JAX's rounding)."""
from __future__ import annotations

import numpy as np

from ...errors import (ArgumentValueError, DTypeError, MissingNameError,
                       NotImplementedInAstjaxError)
from ... import core, lax
from ...config import config
from ...custom_api import custom_jvp as _custom_jvp
from ... import numpy as jnp
from ...numpy import ufuncs as _uf
from ...numpy.ufuncs import _lax_const, asarray_operand, promote_args_inexact, where
from ...numpy.util import canonicalize_axes, library_jit
from .erf_family import dawsn, erfcx, float32_or_64 as _float32_or_64, owens_t, spence
from .erf_family import ndtri_cephes as _ndtri_cephes
from .expint import exp1, expi, expn
from .faddeeva import wofz
from .hypergeometric import hyp1f1, hyp2f1
from .recurrences import bessel_jn, sph_harm_y
from .trig_integrals import fresnel, sici
from .gamma_zeta import (bernoulli, beta, betaln, comb, gamma, gammasgn, i0, i0e, i1, i1e,
                         loggamma, polygamma, zeta)

__all__ = ["logsumexp", "erf", "erfc", "erfinv", "gammaln", "digamma", "expit", "logit",
           "xlogy", "xlog1py", "log_softmax", "softmax", "ndtr", "ndtri", "log_ndtr",
           "entr", "gamma", "gammasgn", "betaln", "factorial", "poch", "kl_div", "rel_entr",
           "i0", "i0e", "multigammaln", "boxcox", "boxcox1p", "gammainc", "gammaincc",
           "betainc", "beta", "loggamma", "comb", "polygamma", "zeta", "bernoulli", "i1",
           "i1e", "expn", "exp1", "expi", "erfcx", "spence", "dawsn", "wofz", "sici", "fresnel",
           "hyp1f1", "hyp2f1", "owens_t", "bessel_jn", "sph_harm_y"]


def _unary(name, fn, doc):
    def f(x):
        [x] = promote_args_inexact(name, x)
        return fn(x)
    f.__name__, f.__doc__ = name, doc
    return f


erf = _unary("erf", lax.erf, """Elementwise error function `2/sqrt(pi) * integral_0^x exp(-t**2) dt`.

    Example:
        >>> import astjax.numpy as jnp, astjax.scipy.special as sp
        >>> sp.erf(jnp.array([0.0, 1.0]))
        Array([0.        , 0.84270084], dtype=float32)
    """)
erfc = _unary("erfc", lax.erfc, "Elementwise complementary error function `1 - erf(x)`.")
erfinv = _unary("erfinv", lax.erf_inv, "Elementwise inverse of `erf` on (-1, 1).")
gammaln = _unary("gammaln", lax.lgamma, "Elementwise `log(|gamma(x)|)`.")
digamma = _unary("digamma", lax.digamma, "Elementwise digamma function, the derivative of `gammaln`.")
expit = _unary("expit", lax.logistic, "Elementwise logistic sigmoid `1 / (1 + exp(-x))`.")


def logit(x):
    """Elementwise `log(x / (1 - x))`, the inverse of `expit`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape, of a floating dtype.
    """
    [x] = promote_args_inexact("logit", x)
    return _uf.log(_uf.true_divide(x, _uf.subtract(1.0, x)))


def _x_log_impl(log):
    """x * log(y) (log: lax.log or lax.log1p), 0 where x == 0 unless y is NaN (SciPy's)."""
    def f(x, y):
        return where(_uf.logical_or(_uf.not_equal(x, 0), _uf.isnan(y)),
                     _uf.multiply(x, log(y)), 0.0)
    return f


def _x_log_jvp(log, dlog):
    """The JVP x' log(y) + y' x dlog(y), as JAX's custom rule (no 0 * inf at x == 0)."""
    def jvp(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        out = _x_log_impl(log)(x, y)
        dt = core.get_aval(out).dtype
        return out, _uf.add(_uf.multiply(dx, log(y)),
                            _uf.multiply(dy, dlog(x, y))).astype(dt)
    return jvp


_xlogy = _custom_jvp(_x_log_impl(_uf.log))
_xlogy.defjvp(_x_log_jvp(_uf.log, lambda x, y: _uf.true_divide(x, y)))
_xlog1py = _custom_jvp(_x_log_impl(_uf.log1p))
_xlog1py.defjvp(_x_log_jvp(_uf.log1p, lambda x, y: _uf.true_divide(x, _uf.add(1, y))))


def xlogy(x, y):
    """Elementwise `x * log(y)`, defined as 0 wherever `x == 0` (unless y is NaN).

    Args:
        x, y: arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype. Its derivative is
        `log(y) dx + x / y dy` (JAX's custom rule: finite in x at x == 0).

    Example:
        >>> import astjax.numpy as jnp, astjax.scipy.special as sp
        >>> sp.xlogy(jnp.array([0.0, 2.0]), jnp.array([0.0, 3.0]))
        Array([0.       , 2.1972246], dtype=float32)
    """
    return _xlogy(*promote_args_inexact("xlogy", x, y))


def xlog1py(x, y):
    """Elementwise `x * log1p(y)`, defined as 0 wherever `x == 0` (unless y is NaN).

    Args:
        x, y: arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype. Its derivative is
        `log1p(y) dx + x / (1 + y) dy`, as JAX's.
    """
    return _xlog1py(*promote_args_inexact("xlog1py", x, y))


def _xlogx_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _xlogx(x), _uf.multiply(dx, _uf.add(_uf.log(x), 1))


# x log x with JAX's derivative log(x) + 1 (+-inf at 0 and inf, not xlogy's NaN there)
_xlogx = _custom_jvp(lambda x: _xlogy(x, x))
_xlogx.defjvp(_xlogx_jvp)


def _real_args(name, *args):
    """`args` promoted to one inexact dtype; complex ones are JAX's ValueError."""
    args = promote_args_inexact(name, *args)
    if any(np.issubdtype(core.get_aval(a).dtype, np.complexfloating) for a in args):
        raise ArgumentValueError(f"{name} does not support complex-valued inputs.")
    return args


def entr(x):
    """Elementwise entropy term `-x * log(x)` (0 at 0, -inf for x < 0).

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape, of a floating dtype.
    """
    [x] = _real_args("entr", x)
    return where(_uf.less(x, 0), -np.inf, _uf.negative(_xlogx(x)))


def ndtr(x):
    """Standard normal CDF, elementwise `P(N(0, 1) <= x)`.

    Args:
        x: array or scalar input.

    Returns:
        An array of `x`'s shape, of a floating dtype.
    """
    x = _float32_or_64(jnp.asarray(x))
    dt = np.dtype(core.get_aval(x).dtype).type
    # JAX's formula, with strong constants of x's dtype (so a weak x gives a strong
    # result, and the rounding matches): erf near 0, erfc in the tails
    half_sqrt_2 = dt(0.5) * np.sqrt(2.0, dtype=dt)
    w = _uf.multiply(x, half_sqrt_2)
    z = lax.abs(w)
    tail = lax.select(lax.gt(w, dt(0.0)), _uf.subtract(dt(2.0), lax.erfc(z)), lax.erfc(z))
    y = lax.select(lax.lt(z, half_sqrt_2), _uf.add(dt(1.0), lax.erf(w)), tail)
    return _uf.multiply(dt(0.5), y)


def ndtri(p):
    """Inverse of `ndtr`: the standard normal quantile of probability `p`.

    Args:
        p: array or scalar input.

    Returns:
        An array of `p`'s shape, of a floating dtype.
    """
    return _ndtri_cephes(_float32_or_64(jnp.asarray(p)))


def log_ndtr(x, series_order=3):
    """Elementwise `log(ndtr(x))`, accurate in both tails.

    Args:
        x: a float32 or float64 array or a Python scalar (other dtypes raise TypeError,
            as in JAX).
        series_order: terms of the asymptotic series used below -10 (float32) / -20
            (float64), a Python int in [0, 30].

    Returns:
        An array of `x`'s shape and dtype.
    """
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise DTypeError(f"x.dtype={np.dtype(x.dtype)} is not supported.",
                         hint="convert x to float32 or float64")
    return _log_ndtr(x, series_order)


def _ndtr_tail_series(t, order):
    """1 - 1/t^2 + 3/t^4 - 15/t^6 ... to `order` terms ((2n-1)!! / t^(2n), alternating),
    the even and odd terms summed apart as JAX does."""
    if order == 0:
        return np.ones((), t.dtype)
    t2 = t * t
    even, odd, power = jnp.zeros_like(t), jnp.zeros_like(t), t2
    for n in range(1, order + 1):
        term = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), t.dtype) / power
        even, odd = (even + term, odd) if n % 2 == 0 else (even, odd + term)
        power = power * t2
    return 1 + even - odd


_HALF_LOG_2PI = float(0.5 * np.log(2 * np.pi))   # a Python float: weak, keeps x's dtype


def _log_ndtr_impl(x, series_order):
    # log(ndtr(x)) loses everything once ndtr(x) underflows: below `low` the
    # asymptotic series of the normal tail, above `high` log(1 - ndtr(-x)) ~ -ndtr(-x)
    low, high = (-20., 8.) if x.dtype == np.float64 else (-10., 5.)
    above = x > high
    p = ndtr(where(above, -x, _uf.maximum(x, low)))
    t = _uf.minimum(x, low)    # (the minimum keeps the unchosen branch finite)
    tail = (-0.5 * (t * t) - _uf.log(-t) - _HALF_LOG_2PI
            + _uf.log(_ndtr_tail_series(t, series_order)))
    return where(above, -p, where(x > low, _uf.log(p), tail))


_log_ndtr = _custom_jvp(_log_ndtr_impl, nondiff_argnums=(1,))


def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (dx,) = primals, tangents
    y = _log_ndtr(x, series_order)
    return y, dx * _uf.exp(-0.5 * x * x - _HALF_LOG_2PI - y)


_log_ndtr.defjvp(_log_ndtr_jvp)


def factorial(n, exact=False):
    """Elementwise `n!` via the gamma function (0 for negative `n`).

    Args:
        n: array or scalar input.
        exact: only False is supported (astjax raises for exact=True).

    Returns:
        An array of `n`'s shape, of a floating dtype.
    """
    if exact:
        raise NotImplementedInAstjaxError("factorial(exact=True) is not implemented")
    [n] = promote_args_inexact("factorial", n)
    return where(_uf.less(n, 0), 0.0, _uf.exp(lax.lgamma(_uf.add(n, 1.0))))


def poch(z, m):
    """Pochhammer symbol (rising factorial) `gamma(z + m) / gamma(z)`.

    Args:
        z, m: arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype.
    """
    return _poch(z, m)


def _poch_impl(z, m):
    z, m = promote_args_inexact("poch", z, m)
    r = _uf.multiply(_uf.multiply(gammasgn(_uf.add(z, m)), gammasgn(z)),
                     _uf.exp(_uf.subtract(lax.lgamma(_uf.add(z, m)), lax.lgamma(z))))
    # 1 where m == 0 for every z, as JAX's and SciPy's (the ratio is NaN at a pole of z)
    return where(_uf.equal(m, 0), np.ones((), core.get_aval(z).dtype), r)


# d/dz = (digamma(z + m) - digamma(z)) poch, d/dm = digamma(z + m) poch, one rule per
# argument as JAX's: an integer m's tangent is a float0 zero, and JAX's rule multiplies
# it (differentiating poch with an integer m is JAX's TypeError)
_poch = _custom_jvp(_poch_impl)
_poch.defjvps(
    lambda dz, out, z, m: _uf.multiply(_uf.multiply(
        _uf.subtract(digamma(_uf.add(z, m)), digamma(z)), _poch(z, m)), dz),
    lambda dm, out, z, m: _uf.multiply(_uf.multiply(digamma(_uf.add(z, m)), _poch(z, m)), dm))


@library_jit
def _log1mexp(x):
    return where(_uf.less(x, float(np.log(2.0))), _uf.log(_uf.negative(_uf.expm1(_uf.negative(x)))),
                 _uf.log1p(_uf.negative(_uf.exp(_uf.negative(x)))))


# JAX's rule (`defjvps`): the tangent is g / expm1(x), not the derivative of the `where`
# (whose branch not taken gives NaN at 0: JAX's derivative there is +-inf)
_log1mexp_rule = _custom_jvp(_log1mexp)
_log1mexp_rule.defjvp(lambda primals, tangents: (
    _log1mexp_rule(primals[0]), _uf.divide(tangents[0], _uf.expm1(primals[0]))))


def rel_entr(p, q):
    """Elementwise relative entropy `p * log(p / q)` (0 at p == 0, inf where undefined).

    Args:
        p, q: arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype.
    """
    p, q = _real_args("rel_entr", p, q)
    both = _uf.logical_and(_uf.greater(p, 0), _uf.greater(q, 0))
    safe_p = where(both, p, 1)
    safe_q = where(both, q, 1)
    # x log x - x log y, as JAX (not p log(p / q)): NaN at p = q = inf, and JAX's
    # derivatives (log(p) + 1 - log(q) in p, -p / q in q)
    val = _uf.subtract(_xlogx(safe_p), _xlogy(safe_p, safe_q))
    zero = _uf.logical_and(_uf.equal(p, 0), _uf.greater_equal(q, 0))
    # (JAX's zero is strong unless p is a weak scalar: so is the result)
    return where(both, val, where(zero, _lax_const(p, 0.0), np.inf))


def kl_div(p, q):
    """Elementwise `p * log(p / q) - p + q` (0-safe at p == 0, inf where undefined).

    Args:
        p, q: arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype: `rel_entr(p, q) - p + q`
        everywhere, as JAX's (so NaN where q is -inf, and the derivative -1 in p there).
    """
    p, q = _real_args("kl_div", p, q)
    return _uf.add(_uf.subtract(rel_entr(p, q), p), q)


def multigammaln(a, d):
    """Log of the multivariate gamma function of dimension `d`.

    Args:
        a: array or scalar input.
        d: the (static, integer) dimension.

    Returns:
        An array of `a`'s shape, of a floating dtype.
    """
    d = int(d)
    [a] = promote_args_inexact("multigammaln", a)
    dt = core.get_aval(a).dtype

    def c(v):   # (every term in a's dtype, as JAX's: float16 stays float16)
        return lax.full((), v, dt)
    constant = _uf.multiply(_uf.multiply(_uf.multiply(c(0.25), c(d)), c(d - 1)),
                            lax.log(c(np.pi)))
    halves = _uf.true_divide(jnp.arange(d, dtype=dt), c(2))
    terms = lax.lgamma(_uf.subtract(jnp.expand_dims(a, -1), halves))
    return _uf.add(jnp.sum(terms, axis=-1), constant)


def boxcox(x, lmbda):
    """Box-Cox transform: `(x**lmbda - 1) / lmbda`, or `log(x)` when `lmbda == 0`.

    Args:
        x, lmbda: arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype.
    """
    x, lmbda = promote_args_inexact("boxcox", x, lmbda)
    lx = _uf.log(x)
    safe = where(_uf.equal(lmbda, 0), 1.0, lmbda)
    return where(_uf.equal(lmbda, 0), lx, _uf.true_divide(_uf.expm1(_uf.multiply(lmbda, lx)), safe))


def boxcox1p(x, lmbda):
    """Box-Cox transform of `1 + x`: `((1 + x)**lmbda - 1) / lmbda`, or `log1p(x)`.

    Args:
        x, lmbda: arrays or scalars, broadcast together.

    Returns:
        An array of the broadcast shape, of a floating dtype.
    """
    x, lmbda = promote_args_inexact("boxcox1p", x, lmbda)
    lx = _uf.log1p(x)
    safe = where(_uf.equal(lmbda, 0), 1.0, lmbda)
    return where(_uf.equal(lmbda, 0), lx, _uf.true_divide(_uf.expm1(_uf.multiply(lmbda, lx)), safe))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) computed stably (the max is subtracted first)."""
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        # a term with b == 0 is absent, derivatives included (not 0 * exp(a) whose
        # second derivative is 0 * inf at an extreme a): JAX's masking
        a = _uf.where(_uf.not_equal(b, 0), a, -np.inf)
    else:
        [a] = promote_args_inexact("logsumexp", a)
    av = core.get_aval(a)
    dims = canonicalize_axes(axis, av.ndim, "logsumexp",
                            sequences=(tuple, list, np.ndarray))   # (as JAX's)
    amax = jnp.max(a, axis=dims, keepdims=True, where=where, initial=-np.inf)  # as JAX
    amax = lax.stop_gradient(_uf.where(jnp.isfinite(amax), amax, 0.0))
    exp_a = _uf.exp(_uf.subtract(a, amax))
    if b is not None:
        exp_a = _uf.multiply(exp_a, b)
    s = jnp.sum(exp_a, axis=dims, keepdims=True, where=where)
    sign = _uf.sign(s)
    s = _uf.abs(s) if (b is not None or return_sign) else s
    out = _uf.add(_uf.log(s), amax)
    if not keepdims:
        out = lax.squeeze(out, dims)
        sign = lax.squeeze(sign, dims)
    if return_sign:
        return out, sign
    if b is not None:
        out = _uf.where(_uf.less(sign, 0), np.nan, out)
    return out


def softmax(x, /, *, axis=None):
    """`softmax` as in `scipy.special`: over `axis`, all axes by default (None);
    see `astjax.nn.softmax` (whose default is the last axis)."""
    return _softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """`log_softmax` as in `scipy.special`: over `axis`, all axes by default (None);
    see `astjax.nn.log_softmax` (whose default is the last axis)."""
    return _log_softmax(x, axis=axis)


def _inexact_arg(name, x):
    return promote_args_inexact(name, asarray_operand(x))[0]


def _refuse_bool(name, x):
    """JAX's TypeError for a bool softmax input (its `x - max(x)` is a bool subtraction;
    checked after the axis, as JAX's order)."""
    if core.get_aval(asarray_operand(x)).dtype == np.bool_:
        raise DTypeError(f"{name}: sub does not accept dtype bool (x - max(x))",
                         hint="convert x to a float dtype first: x.astype(jnp.float32)")


def _axes(x, axis):
    return canonicalize_axes(axis, core.get_aval(x).ndim)


def _softmax(x, axis=-1, where=None, initial=None):
    """`exp(x) / sum(exp(x))` along `axis`, computed stably (`jax.nn.softmax`).

    Args:
        x: array input.
        axis: axis or axes to normalize over (default the last).
        where: optional boolean mask of elements to include.
        initial: lower bound for the max subtracted for stability.

    Returns:
        An array of `x`'s shape whose entries along `axis` sum to 1.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.nn.softmax(jnp.array([1.0, 2.0, 3.0]))
        Array([0.09003057, 0.24472848, 0.66524094], dtype=float32)
    """
    x0, x = x, _inexact_arg("softmax", x)
    axes = _axes(x, axis)
    _refuse_bool("softmax", x0)
    initial = -np.inf if initial is None else initial
    if config.read("jax_softmax_custom_jvp"):   # JAX's newer rule: y * (dx - <y, dx>)
        return _softmax_rule(x, axes, where, initial)
    return _softmax_plain(x, axes, where, initial)


def _softmax_plain(x, axes, where, initial):
    # JAX's formula: no guard on a non-finite max, so an input with +inf gives NaN
    # everywhere (as JAX documents) and XLA fuses the max with exp(x - max)
    xmax = jnp.max(x, axis=axes, keepdims=True, where=where, initial=initial)
    x_safe = x if where is None else _uf.where(where, x, initial)
    unnormalized = _uf.exp(_uf.subtract(x_safe, lax.stop_gradient(xmax)))
    out = _uf.true_divide(unnormalized,
                          jnp.sum(unnormalized, axis=axes, keepdims=True, where=where))
    return out if where is None else _uf.where(where, out, 0.0)


def _softmax_rule_jvp(axes, primals, tangents):
    (x, where, initial), (dx, _, _) = primals, tangents
    y = _softmax_rule(x, axes, where, initial)
    return y, y * (dx - jnp.sum(y * dx, axis=axes, keepdims=True, where=where))


_softmax_rule = _custom_jvp(_softmax_plain, nondiff_argnums=(1,))
_softmax_rule.defjvp(_softmax_rule_jvp)


@library_jit(static_argnames=("axis",))
def _log_softmax(x, axis=-1, where=None, initial=None):
    """`x - logsumexp(x)` along `axis`, i.e. the log of `softmax` (`jax.nn.log_softmax`).

    Args:
        x: array input.
        axis: axis or axes to normalize over (default the last).
        where: optional boolean mask of elements to include.
        initial: lower bound for the max subtracted for stability.

    Returns:
        An array of `x`'s shape.
    """
    x0, x = x, _inexact_arg("log_softmax", x)
    axes = _axes(x, axis)
    _refuse_bool("log_softmax", x0)
    xmax = jnp.max(x, axis=axes, keepdims=True, where=where,
                   initial=-np.inf if initial is None else initial)
    x_safe = x if where is None else _uf.where(where, x, -np.inf)
    shifted = _uf.subtract(x_safe, lax.stop_gradient(xmax))   # (no finite guard: JAX's)
    out = _uf.subtract(shifted, _uf.log(
        jnp.sum(_uf.exp(shifted), axis=axes, keepdims=True, where=where)))
    if where is not None:
        out = _uf.where(where, out, -np.inf)
    return out



def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x) (`lax.igamma`),
    differentiable in x."""
    a, x = promote_args_inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b), differentiable in x."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    return lax.betainc(a, b, x)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise MissingNameError(f"astjax.scipy.special.{name} is not implemented",
                           hint="docs/api.md lists what is implemented")
