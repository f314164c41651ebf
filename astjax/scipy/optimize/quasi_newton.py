"""The two quasi-Newton minimizers behind `astjax.scipy.optimize.minimize`, as JAX's:

- `minimize_bfgs` (method 'BFGS'): Nocedal & Wright algorithm 6.1, a dense inverse
  Hessian updated from each step and gradient change (the update skipped when the
  curvature `y.s` is zero), the step from the strong-Wolfe `line_search`;
- `minimize_lbfgs` (method 'l-bfgs-experimental-do-not-rely-on-this'): algorithm 7.5,
  the inverse Hessian applied by the two-loop recursion over the last `maxcor` steps,
  extended to complex x (Sorber et al. 2012), with SciPy's stopping rules (ftol, maxfun,
  maxgrad).

Both are one `lax.while_loop` over a NamedTuple state, so they run under jit and vmap;
the results carry JAX's counters and status codes."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...ad_api import value_and_grad
from .line_search import line_search

__all__ = ["minimize_bfgs", "minimize_lbfgs", "BFGSResults", "LBFGSResults"]


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


class BFGSResults(NamedTuple):
    """BFGS state and result: `converged`, `failed` (the line search failed), `k`
    (iterations), `nfev`/`ngev`/`nhev` (evaluations), `x_k`, `f_k`, `g_k`, `H_k` (inverse
    Hessian estimate), `old_old_fval`, `status` (0 converged, 1 maxiter, 2 + line search
    status on failure, -1 otherwise) and `line_search_status`."""
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    nhev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object
    old_old_fval: object
    status: object
    line_search_status: object


def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """Minimize `fun` (real scalar of a 1-D x) from `x0` by BFGS until the `norm`-norm of
    the gradient is below `gtol`, at most `maxiter` iterations (default 200 x size)."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    n = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    start = BFGSResults(converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0,
                        nfev=1, ngev=1, nhev=0, x_k=x0, f_k=f_0, g_k=g_0,
                        H_k=jnp.eye(n, dtype=x0.dtype),
                        old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=0,
                        line_search_status=0)

    def step(s):
        direction = -_dot(s.H_k, s.g_k)
        ls = line_search(fun, s.x_k, direction, old_fval=s.f_k, old_old_fval=s.old_old_fval,
                         gfk=s.g_k, maxiter=line_search_maxiter)
        dx = ls.a_k * direction
        dg = ls.g_k - s.g_k
        rho = jnp.reciprocal(_dot(dg, dx))
        # H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T
        left = jnp.eye(n, dtype=rho.dtype) - rho * jnp.outer(dx, dg)
        h_new = jnp.einsum("ij,jk,lk", left, s.H_k, left, precision=lax.Precision.HIGHEST) \
            + rho * jnp.outer(dx, dx)
        return s._replace(converged=jnp.linalg.norm(ls.g_k, ord=norm) < gtol,
                          failed=ls.failed, k=s.k + 1, nfev=s.nfev + ls.nfev,
                          ngev=s.ngev + ls.ngev, x_k=s.x_k + dx, f_k=ls.f_k, g_k=ls.g_k,
                          H_k=jnp.where(jnp.isfinite(rho), h_new, s.H_k),
                          old_old_fval=s.f_k, line_search_status=ls.status)

    s = lax.while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), step, start)
    status = jnp.where(s.converged, 0, jnp.where(
        s.k == maxiter, 1, jnp.where(s.failed, 2 + s.line_search_status, -1)))
    return s._replace(status=status)


class LBFGSResults(NamedTuple):
    """L-BFGS state and result: `converged`, `failed`, `k`, `nfev`, `ngev`, `x_k`, `f_k`,
    `g_k`, the histories `s_history`, `y_history`, `rho_history` (oldest first), `gamma`
    (the initial Hessian scale), `status` (0 nominal, 1 maxiter, 2 maxfun, 3 maxgrad, 4
    no progress (ftol), 5 line search failed) and `ls_status`."""
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    x_k: object
    f_k: object
    g_k: object
    s_history: object
    y_history: object
    rho_history: object
    gamma: object
    status: object
    ls_status: object


def minimize_lbfgs(fun, x0, maxiter=None, norm=np.inf, maxcor=10, ftol=2.220446049250313e-09,
                   gtol=1e-05, maxfun=None, maxgrad=None, maxls=20):
    """Minimize `fun` from `x0` (real or complex 1-D) by L-BFGS with `maxcor` stored
    corrections; stops when the gradient's `norm`-norm is below `gtol`, or fails when an
    iteration gains less than `ftol`, a budget (`maxiter`, default 200 x size when no
    budget is given; `maxfun`; `maxgrad`) runs out or the line search (`maxls` steps)
    fails."""
    n = len(x0)
    dtype = jnp.asarray(x0).dtype
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = n * 200
    maxiter = np.inf if maxiter is None else maxiter
    maxfun = np.inf if maxfun is None else maxfun
    maxgrad = np.inf if maxgrad is None else maxgrad
    f_0, g_0 = value_and_grad(fun)(x0)
    start = LBFGSResults(converged=jnp.array(False), failed=jnp.array(False), k=0, nfev=1,
                         ngev=1, x_k=x0, f_k=f_0, g_k=g_0,
                         s_history=jnp.zeros((maxcor, n), dtype),
                         y_history=jnp.zeros((maxcor, n), dtype),
                         rho_history=jnp.zeros((maxcor,), dtype), gamma=1.0, status=0,
                         ls_status=0)

    def step(s):
        direction = _two_loop(s)
        ls = line_search(f=fun, xk=s.x_k, pk=direction, old_fval=s.f_k, gfk=s.g_k,
                         maxiter=maxls)
        dx = jnp.asarray(ls.a_k).astype(direction.dtype) * direction
        dg = ls.g_k - s.g_k
        curvature = jnp.real(_dot(dg, dx))
        gamma = curvature / jnp.real(_dot(jnp.conj(dg), dg))
        # the last true condition wins, as in SciPy's reporting order
        status = jnp.array(0)
        for cond, code in ((s.f_k - ls.f_k < ftol, 4), (s.ngev >= maxgrad, 3),
                           (s.nfev >= maxfun, 2), (s.k >= maxiter, 1), (ls.failed, 5)):
            status = jnp.where(cond, code, status)
        converged = jnp.linalg.norm(ls.g_k, ord=norm) < gtol
        return s._replace(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev,
            x_k=(s.x_k + dx).astype(s.x_k.dtype), f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype),
            s_history=_push(s.s_history, dx), y_history=_push(s.y_history, dg),
            rho_history=_push(s.rho_history, jnp.reciprocal(curvature).astype(dg.dtype)),
            gamma=gamma.astype(s.g_k.dtype), status=jnp.where(converged, 0, status),
            ls_status=ls.status)

    return lax.while_loop(lambda s: ~s.converged & ~s.failed, step, start)


def _push(history, new):
    """Drop the oldest entry (row 0), append `new` as the last."""
    return jnp.roll(history, -1, axis=0).at[-1].set(new)


def _two_loop(s):
    """The L-BFGS direction -H g by the two-loop recursion over the stored pairs."""
    dtype = s.rho_history.dtype
    size = len(s.rho_history)
    used = jnp.where(s.k < size, s.k, size)

    def newest_first(j, carry):
        q, alphas = carry
        i = size - 1 - j
        a = s.rho_history[i] * _dot(jnp.conj(s.s_history[i]), q).real.astype(dtype)
        return q - a * jnp.conj(s.y_history[i]), alphas.at[i].set(a)

    q, alphas = lax.fori_loop(0, used, newest_first,
                              (-jnp.conj(s.g_k), jnp.zeros_like(s.rho_history)))

    def oldest_first(j, q):
        i = size - used + j
        beta = s.rho_history[i] * _dot(s.y_history[i], q).real.astype(dtype)
        return q + (alphas[i] - beta) * s.s_history[i]

    return lax.fori_loop(0, used, oldest_first, s.gamma * q)
