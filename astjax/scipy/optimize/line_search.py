"""The strong-Wolfe line search under `astjax.scipy.optimize`'s BFGS and L-BFGS
(Nocedal & Wright, Numerical Optimization, algorithms 3.5 and 3.6), as JAX's
`jax._src.scipy.optimize.line_search`: the same trial steps (first step from the
previous decrease, doubling; zoom by cubic, then quadratic, then bisection
interpolation), the same counters and status codes, all in `lax.while_loop`s so it
runs under jit and vmap.

`line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
maxiter=20)` -> `LineSearchResults`."""
from __future__ import annotations

from typing import NamedTuple

from ... import lax
from ... import numpy as jnp
from ...ad_api import value_and_grad
from ...numpy.ufuncs import promote_dtypes_inexact

__all__ = ["line_search", "LineSearchResults"]


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _pick(mask, state, **new):
    """`state` (a dict) with the entries of `new` taken where `mask` holds."""
    out = dict(state)
    out.update({k: jnp.where(mask, v, state[k]) for k, v in new.items()})
    return out


def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
    """Minimizer of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
    dtype = jnp.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    m = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    rhs = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    ca, cb = _dot(m, rhs) / denom
    return a + (-cb + jnp.sqrt(cb * cb - 3.0 * ca * fpa)) / (3.0 * ca)


def _quadratic_minimizer(a, fa, fpa, b, fb):
    """Minimizer of the parabola through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    curv = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2.0 * curv)


def _zoom(phi, sufficient_decrease, curvature_ok, a_lo, phi_lo, dphi_lo, a_hi, phi_hi,
          dphi_hi, g_0, skip):
    """Shrink [a_lo, a_hi] to a step meeting the strong Wolfe conditions (algorithm
    3.6); a no-op loop when `skip`. Gives up after 30 trials or a tiny interval."""
    state = dict(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
                 a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.0,
                 phi_rec=(phi_lo + phi_hi) / 2.0, a_star=1.0, phi_star=phi_lo,
                 dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)

    def trial(s):
        width = s["a_hi"] - s["a_lo"]
        lo, hi = jnp.minimum(s["a_hi"], s["a_lo"]), jnp.maximum(s["a_hi"], s["a_lo"])
        tiny = 1e-5 if jnp.finfo(width.dtype).bits < 64 else 1e-10
        s = dict(s, failed=s["failed"] | (width <= tiny))
        cubic = _cubic_minimizer(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"],
                                 s["phi_hi"], s["a_rec"], s["phi_rec"])
        take_cubic = (s["j"] > 0) & (cubic > lo + 0.2 * width) & (cubic < hi - 0.2 * width)
        quad = _quadratic_minimizer(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"],
                                    s["phi_hi"])
        take_quad = ~take_cubic & (quad > lo + 0.1 * width) & (quad < hi - 0.1 * width)
        a_j = jnp.where(take_cubic, cubic, s["a_rec"])
        a_j = jnp.where(take_quad, quad, a_j)
        a_j = jnp.where(~take_cubic & ~take_quad, (s["a_lo"] + s["a_hi"]) / 2.0, a_j)
        phi_j, dphi_j, g_j = phi(a_j)
        phi_j = phi_j.astype(s["phi_lo"].dtype)
        dphi_j = dphi_j.astype(s["dphi_lo"].dtype)
        g_j = g_j.astype(s["g_star"].dtype)
        s = dict(s, nfev=s["nfev"] + 1, ngev=s["ngev"] + 1)
        # where the trial lands decides which end of the bracket it replaces
        to_hi = sufficient_decrease(a_j, phi_j) | (phi_j >= s["phi_lo"])
        accept = curvature_ok(dphi_j) & ~to_hi
        flip = (dphi_j * (s["a_hi"] - s["a_lo"]) >= 0.0) & ~to_hi & ~accept
        to_lo = ~to_hi & ~accept
        s = _pick(to_hi, s, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s["a_hi"],
                  phi_rec=s["phi_hi"])
        s = _pick(accept, dict(s, done=accept | s["done"]), a_star=a_j, phi_star=phi_j,
                  dphi_star=dphi_j, g_star=g_j)
        s = _pick(flip, s, a_hi=s["a_lo"], phi_hi=s["phi_lo"], dphi_hi=s["dphi_lo"],
                  a_rec=s["a_hi"], phi_rec=s["phi_hi"])
        s = _pick(to_lo & ~flip, s, a_rec=s["a_lo"], phi_rec=s["phi_lo"])
        s = _pick(to_lo, s, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        j = s["j"] + 1
        return dict(s, j=j, failed=s["failed"] | (j >= 30))

    return lax.while_loop(lambda s: ~s["done"] & ~skip & ~s["failed"], trial, state)


class LineSearchResults(NamedTuple):
    """What `line_search` found: `failed` (no step met the strong Wolfe conditions),
    `nit`, `nfev`, `ngev`, `k` (iterations + 1), `a_k` (the step), `f_k` and `g_k` (value
    and gradient there), `status` (0 passed, 1 zoom failed, 3 maxiter reached)."""
    failed: object
    nit: object
    nfev: object
    ngev: object
    k: object
    a_k: object
    f_k: object
    g_k: object
    status: object


_STAR = ("a_star", "phi_star", "dphi_star", "g_star")


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """A step along the descent direction `pk` from `xk` satisfying the strong Wolfe
    conditions with constants `c1`, `c2` (algorithm 3.5 of Nocedal & Wright), trying at
    most `maxiter` expanding steps. `old_fval`/`gfk` are f and its gradient at xk (computed
    when not given); `old_old_fval`, the previous value, sets the first trial step."""
    xk, pk = promote_dtypes_inexact(xk, pk)

    def phi(t):
        value, grad = value_and_grad(f)(xk + jnp.array(t, dtype=pk.dtype) * pk)
        return value, jnp.real(_dot(grad, pk)), grad

    fresh = old_fval is None or gfk is None
    if fresh:
        phi_0, dphi_0, gfk = phi(0)
    else:
        phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        first_step = jnp.where(guess > 1, 1.0, guess)
    else:
        first_step = 1

    def sufficient_decrease(a, value):      # true when the Armijo condition FAILS
        return value > phi_0 + c1 * a * dphi_0

    def curvature_ok(slope):
        return jnp.abs(slope) <= -c2 * dphi_0

    state = dict(done=jnp.array(False), failed=jnp.array(False), i=1, a_i1=0.0,
                 phi_i1=phi_0, dphi_i1=dphi_0, nfev=int(fresh), ngev=int(fresh),
                 a_star=0.0, phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def expand(s):
        a_i = jnp.where(s["i"] == 1, first_step, s["a_i1"] * 2.0)
        phi_i, dphi_i, g_i = phi(a_i)
        s = dict(s, nfev=s["nfev"] + 1, ngev=s["ngev"] + 1)
        zoom_below = sufficient_decrease(a_i, phi_i) | ((phi_i >= s["phi_i1"]) & (s["i"] > 1))
        accept = curvature_ok(dphi_i) & ~zoom_below
        zoom_above = (dphi_i >= 0.0) & ~zoom_below & ~accept
        z1 = _zoom(phi, sufficient_decrease, curvature_ok, s["a_i1"], s["phi_i1"],
                   s["dphi_i1"], a_i, phi_i, dphi_i, gfk, ~zoom_below)
        z2 = _zoom(phi, sufficient_decrease, curvature_ok, a_i, phi_i, dphi_i, s["a_i1"],
                   s["phi_i1"], s["dphi_i1"], gfk, ~zoom_above)
        s = dict(s, nfev=s["nfev"] + z1["nfev"] + z2["nfev"],
                 ngev=s["ngev"] + z1["ngev"] + z2["ngev"])
        s = _pick(zoom_below, dict(s, done=zoom_below | s["done"],
                                   failed=(zoom_below & z1["failed"]) | s["failed"]),
                  **{k: z1[k] for k in _STAR})
        s = _pick(accept, dict(s, done=accept | s["done"]), a_star=a_i, phi_star=phi_i,
                  dphi_star=dphi_i, g_star=g_i)
        s = _pick(zoom_above, dict(s, done=zoom_above | s["done"],
                                   failed=(zoom_above & z2["failed"]) | s["failed"]),
                  **{k: z2[k] for k in _STAR})
        return dict(s, i=s["i"] + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    s = lax.while_loop(lambda s: ~s["done"] & (s["i"] <= maxiter) & ~s["failed"], expand,
                       state)
    status = jnp.where(s["failed"], jnp.array(1), jnp.where(s["i"] > maxiter, jnp.array(3),
                                                            jnp.array(0)))
    step = jnp.asarray(s["a_star"])
    # in single precision a vanishing step is kept at 1e-8 so the update still moves
    step = jnp.where((jnp.finfo(step.dtype).bits != 64) & (jnp.abs(step) < 1e-8),
                     jnp.sign(step) * 1e-8, step)
    return LineSearchResults(failed=s["failed"] | ~s["done"], nit=s["i"] - 1, nfev=s["nfev"],
                             ngev=s["ngev"], k=s["i"], a_k=step, f_k=s["phi_star"],
                             g_k=s["g_star"], status=status)
