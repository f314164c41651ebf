"""`astjax.scipy.special`: logsumexp, erf/erfc/erfinv, gammaln, digamma, expit,
logit, xlogy, xlog1py, and a few relatives — on the lax special-function
primitives (the same CHLO ops JAX lowers to)."""
from __future__ import annotations

import numpy as np

from ...errors import MissingNameError, NotImplementedInAstjaxError
from ... import core, lax
from ... import numpy as jnp
from ...numpy import ufuncs as _uf
from ...numpy.logic import i0 as _i0
from ...numpy.ufuncs import asarray_operand, promote_args_inexact, where
from ...numpy.util import canonicalize_axes

__all__ = ["logsumexp", "erf", "erfc", "erfinv", "gammaln", "digamma", "expit", "logit",
           "xlogy", "xlog1py", "log_softmax", "softmax", "ndtr", "ndtri", "log_ndtr",
           "entr", "gamma", "gammasgn", "betaln", "factorial", "poch", "kl_div", "rel_entr",
           "i0", "i0e", "multigammaln", "boxcox", "boxcox1p", "gammainc", "gammaincc",
           "betainc"]


def _unary(name, fn):
    def f(x):
        [x] = promote_args_inexact(name, x)
        return fn(x)
    f.__name__ = name
    return f


erf = _unary("erf", lax.erf)
erfc = _unary("erfc", lax.erfc)
erfinv = _unary("erfinv", lax.erf_inv)
gammaln = _unary("gammaln", lax.lgamma)
digamma = _unary("digamma", lax.digamma)
expit = _unary("expit", lax.logistic)


def gamma(x):
    [x] = promote_args_inexact("gamma", x)
    sign = where(_uf.logical_or(_uf.greater(x, 0), _uf.equal(_uf.remainder(_uf.floor(x), 2), 0)),
                 1.0, -1.0)
    return _uf.multiply(sign, _uf.exp(lax.lgamma(x)))


def logit(x):
    [x] = promote_args_inexact("logit", x)
    return _uf.log(_uf.true_divide(x, _uf.subtract(1.0, x)))


def xlogy(x, y):
    x, y = promote_args_inexact("xlogy", x, y)
    safe_y = where(_uf.equal(x, 0), 1.0, y)
    return where(_uf.equal(x, 0), 0.0, _uf.multiply(x, _uf.log(safe_y)))


def xlog1py(x, y):
    x, y = promote_args_inexact("xlog1py", x, y)
    safe_y = where(_uf.equal(x, 0), 0.0, y)
    return where(_uf.equal(x, 0), 0.0, _uf.multiply(x, _uf.log1p(safe_y)))


def entr(x):
    [x] = promote_args_inexact("entr", x)
    return where(_uf.less(x, 0), -np.inf,
                 _uf.negative(xlogy(x, x)))


def ndtr(x):
    [x] = promote_args_inexact("ndtr", x)
    return _uf.multiply(0.5, lax.erfc(_uf.multiply(x, -1.0 / np.sqrt(2.0))))


def ndtri(p):
    [p] = promote_args_inexact("ndtri", p)
    return _uf.multiply(np.sqrt(2.0), lax.erf_inv(_uf.subtract(_uf.multiply(2.0, p), 1.0)))


def log_ndtr(x):
    return _uf.log(ndtr(x))


def gammasgn(x):
    [x] = promote_args_inexact("gammasgn", x)
    neg_int = _uf.logical_and(_uf.less_equal(x, 0), _uf.equal(x, _uf.floor(x)))
    even = _uf.equal(_uf.remainder(_uf.floor(x), 2), 0)
    return where(neg_int, np.nan, where(_uf.logical_or(_uf.greater(x, 0), even), 1.0, -1.0))


def betaln(a, b):
    a, b = promote_args_inexact("betaln", a, b)
    return _uf.subtract(_uf.add(lax.lgamma(a), lax.lgamma(b)), lax.lgamma(_uf.add(a, b)))


def factorial(n, exact=False):
    if exact:
        raise NotImplementedInAstjaxError("factorial(exact=True) is not implemented")
    [n] = promote_args_inexact("factorial", n)
    return where(_uf.less(n, 0), 0.0, _uf.exp(lax.lgamma(_uf.add(n, 1.0))))


def poch(z, m):
    z, m = promote_args_inexact("poch", z, m)
    return _uf.multiply(_uf.multiply(gammasgn(_uf.add(z, m)), gammasgn(z)),
                        _uf.exp(_uf.subtract(lax.lgamma(_uf.add(z, m)), lax.lgamma(z))))


def rel_entr(p, q):
    p, q = promote_args_inexact("rel_entr", p, q)
    both = _uf.logical_and(_uf.greater(p, 0), _uf.greater(q, 0))
    safe_p = where(both, p, 1.0)
    safe_q = where(both, q, 1.0)
    val = _uf.multiply(safe_p, _uf.log(_uf.true_divide(safe_p, safe_q)))
    zero = _uf.logical_and(_uf.equal(p, 0), _uf.greater_equal(q, 0))
    return where(both, val, where(zero, 0.0, np.inf))


def kl_div(p, q):
    p, q = promote_args_inexact("kl_div", p, q)
    both = _uf.logical_and(_uf.greater(p, 0), _uf.greater(q, 0))
    zero = _uf.logical_and(_uf.equal(p, 0), _uf.greater_equal(q, 0))
    val = _uf.add(_uf.subtract(rel_entr(p, q), p), q)
    return where(both, val, where(zero, q, np.inf))


def i0(x):
    return _i0(x)


def i0e(x):
    [x] = promote_args_inexact("i0e", x)
    return _uf.multiply(_uf.exp(_uf.negative(_uf.abs(x))), i0(x))


def multigammaln(a, d):
    d = int(d)
    [a] = promote_args_inexact("multigammaln", a)
    out = _uf.multiply(d * (d - 1) / 4.0, np.log(np.pi))
    for j in range(d):
        out = _uf.add(out, lax.lgamma(_uf.subtract(a, j / 2.0)))
    return out


def boxcox(x, lmbda):
    x, lmbda = promote_args_inexact("boxcox", x, lmbda)
    lx = _uf.log(x)
    safe = where(_uf.equal(lmbda, 0), 1.0, lmbda)
    return where(_uf.equal(lmbda, 0), lx, _uf.true_divide(_uf.expm1(_uf.multiply(lmbda, lx)), safe))


def boxcox1p(x, lmbda):
    x, lmbda = promote_args_inexact("boxcox1p", x, lmbda)
    lx = _uf.log1p(x)
    safe = where(_uf.equal(lmbda, 0), 1.0, lmbda)
    return where(_uf.equal(lmbda, 0), lx, _uf.true_divide(_uf.expm1(_uf.multiply(lmbda, lx)), safe))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) computed stably (the max is subtracted first)."""
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
    else:
        [a] = promote_args_inexact("logsumexp", a)
    av = core.get_aval(a)
    dims = canonicalize_axes(axis, av.ndim, "logsumexp")
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


def softmax(x, axis=None):
    return _softmax(x, axis=-1 if axis is None else axis)


def log_softmax(x, axis=None):
    return _log_softmax(x, axis=-1 if axis is None else axis)


def _inexact_arg(name, x):
    return promote_args_inexact(name, asarray_operand(x))[0]


def _axes(x, axis):
    return canonicalize_axes(axis, core.get_aval(x).ndim)


def _softmax(x, axis=-1, where=None, initial=None):
    """`jax.nn.softmax` (re-exported by `astjax.nn`)."""
    x = _inexact_arg("softmax", x)
    axes = _axes(x, axis)
    xmax = jnp.max(x, axis=axes, keepdims=True, where=where,
                   initial=-np.inf if initial is None else initial)
    xmax = lax.stop_gradient(_uf.where(jnp.isfinite(xmax), xmax, 0.0))
    unnormalized = _uf.exp(_uf.subtract(x, xmax))
    if where is not None:
        unnormalized = _uf.where(where, unnormalized, 0.0)
    return _uf.true_divide(unnormalized, jnp.sum(unnormalized, axis=axes, keepdims=True))


def _log_softmax(x, axis=-1, where=None, initial=None):
    """`jax.nn.log_softmax` (re-exported by `astjax.nn`)."""
    x = _inexact_arg("log_softmax", x)
    axes = _axes(x, axis)
    xmax = jnp.max(x, axis=axes, keepdims=True, where=where,
                   initial=-np.inf if initial is None else initial)
    xmax = lax.stop_gradient(_uf.where(jnp.isfinite(xmax), xmax, 0.0))
    shifted = _uf.subtract(x, xmax)
    e = _uf.exp(shifted)
    if where is not None:
        e = _uf.where(where, e, 0.0)
    out = _uf.subtract(shifted, _uf.log(jnp.sum(e, axis=axes, keepdims=True)))
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
