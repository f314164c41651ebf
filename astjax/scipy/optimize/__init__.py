"""`astjax.scipy.optimize` (JAX's `jax.scipy.optimize`): `minimize(fun, x0, args=(), *,
method, tol=None, options=None)` with method 'BFGS' or
'l-bfgs-experimental-do-not-rely-on-this' (quasi_newton.py, on the line search of
line_search.py), returning an `OptimizeResults`. As in JAX, `tol` is accepted and
unused (the methods' own `gtol` option decides), gradients come from `value_and_grad`,
and the whole search is a while loop: jit and vmap apply, differentiation through it is
not offered."""
from __future__ import annotations

from typing import NamedTuple

from ... import numpy as jnp
from ...errors import ArgumentTypeError, ArgumentValueError
from .quasi_newton import minimize_bfgs, minimize_lbfgs

__all__ = ["minimize", "OptimizeResults"]


class OptimizeResults(NamedTuple):
    """What `minimize` found: `x`, `success` (converged and the line search did not
    fail), `status` (solver-specific; 0 converged), `fun` and `jac` (value and gradient at
    x), `hess_inv` (BFGS's inverse Hessian estimate; None for L-BFGS), `nfev`, `njev`
    and `nit` (function and gradient evaluations, iterations)."""
    x: object
    success: object
    status: object
    fun: object
    jac: object
    hess_inv: object
    nfev: object
    njev: object
    nit: object


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize `fun(x, *args)` (a real scalar) over the 1-D `x` from `x0`, as JAX's
    `jax.scipy.optimize.minimize`: `method` is 'BFGS' or
    'l-bfgs-experimental-do-not-rely-on-this' (case-insensitive); `options` are the
    method's keywords (BFGS: maxiter, norm, gtol, line_search_maxiter; L-BFGS: maxiter,
    norm, maxcor, ftol, gtol, maxfun, maxgrad, maxls). `tol` is accepted and unused, as
    in JAX."""
    del tol
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise ArgumentTypeError("args argument to jax.scipy.optimize.minimize must be a "
                                f"tuple, got {args}", hint="pass args=(a, b) as a tuple")

    def objective(x):
        return fun(x, *args)

    kind = method.lower()
    if kind == "bfgs":
        r = minimize_bfgs(objective, x0, **options)
        hess_inv = r.H_k
    elif kind == "l-bfgs-experimental-do-not-rely-on-this":
        r = minimize_lbfgs(objective, x0, **options)
        hess_inv = None
    else:
        raise ArgumentValueError(f"Method {method} not recognized",
                                 hint="method='BFGS' or "
                                      "method='l-bfgs-experimental-do-not-rely-on-this'")
    return OptimizeResults(x=r.x_k, success=r.converged & jnp.logical_not(r.failed),
                           status=r.status, fun=r.f_k, jac=r.g_k, hess_inv=hess_inv,
                           nfev=r.nfev, njev=r.ngev, nit=r.k)
