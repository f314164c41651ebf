"""`astjax.scipy.sparse.linalg` (JAX's `jax.scipy.sparse.linalg`): Krylov solvers of
`A x = b` for a linear operator given as a function, a square matrix or an object with
`@`, and `b` any pytree of arrays.

- `cg` (conjugate gradients, preconditioned), `bicgstab` (BiCGSTAB) and `gmres`
  (restarted GMRES, the least-squares step either batched or by Givens rotations).
- Each iteration is a `lax.while_loop`, wrapped in `lax.custom_linear_solve` with the
  same solver as its transpose solver (`cg`: `symmetric=True` for real `b`), so a
  derivative is one more solve, not a differentiation through the loop, as in JAX.
- Tolerances are SciPy's "non-legacy" ones: stop when
  `norm(residual) <= max(tol * norm(b), atol)`; `maxiter` defaults to 10 x size of b.
- `cg` and `bicgstab` return `(x, None)`; `gmres` returns `(x, info)` with info -1 when
  x holds a NaN, else 0.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...errors import ArgumentTypeError, ArgumentValueError
from ...tree_util import Partial, tree_leaves, tree_map, tree_structure
from ..linalg import solve as _dense_solve, solve_triangular as _solve_triangular

__all__ = ["cg", "gmres", "bicgstab"]

_HIGHEST = lax.Precision.HIGHEST

# ----------------------------------------------------------------- pytree vector algebra


def _real_inner(x, y):
    """Re <x, y> for one leaf, real-valued (imaginary cross terms dropped: the solvers
    only take it of z^H M z with M Hermitian positive definite)."""
    out = jnp.vdot(jnp.real(x), jnp.real(y), precision=_HIGHEST)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        out = out + jnp.vdot(jnp.imag(x), jnp.imag(y), precision=_HIGHEST)
    return out


def _tree_real_inner(x, y):
    return sum(tree_leaves(tree_map(_real_inner, x, y)))


def _tree_inner(x, y):
    """<x, y> over every leaf (x conjugated)."""
    return sum(tree_leaves(tree_map(lambda a, b: jnp.vdot(a, b, precision=_HIGHEST), x, y)))


def _tree_norm(x):
    return jnp.sqrt(sum(_real_inner(leaf, leaf) for leaf in tree_leaves(x)))


def _axpy(alpha, x, y):
    """alpha * x + y, leafwise."""
    return tree_map(lambda a, b: alpha * a + b, x, y)


def _scale(alpha, x):
    return tree_map(lambda a: alpha * a, x)


_tree_add = functools.partial(tree_map, operator.add)
_tree_sub = functools.partial(tree_map, operator.sub)


def _leaf_dtype(x):
    return jnp.result_type(*tree_leaves(x))


@Partial
def _identity(x):
    return x


def _as_operator(a, what="linear operator"):
    """A function x -> A x from a function, a square 2-D array or an object with `@`."""
    if callable(a):
        return a
    shape = getattr(a, "shape", None)
    if isinstance(a, np.ndarray) or hasattr(a, "__matmul__"):
        if shape is not None and (len(shape) != 2 or shape[0] != shape[1]):
            raise ArgumentValueError(f"{what} must be a square matrix, but has shape: "
                                     f"{tuple(shape)}",
                                     hint="pass a 2-D (n, n) array or a function x -> A @ x")
        return functools.partial(jnp.matmul, a) if shape is not None else \
            functools.partial(operator.matmul, a)
    raise ArgumentTypeError(f"{what} must be either a function or ndarray: {a!r}",
                            hint="pass a 2-D (n, n) array or a function x -> A @ x")


def _check_guess(x0, b):
    if tree_structure(x0) != tree_structure(b):
        raise ArgumentValueError("x0 and b must have matching tree structure: "
                                 f"{tree_structure(x0)} vs {tree_structure(b)}",
                                 hint="give x0 the same nesting of containers as b")
    shapes0 = [np.shape(v) for v in tree_leaves(x0)]
    shapes = [np.shape(v) for v in tree_leaves(b)]
    if shapes0 != shapes:
        raise ArgumentValueError("arrays in x0 and b must have matching shapes: "
                                 f"{shapes0} vs {shapes}",
                                 hint="give each leaf of x0 the shape of b's leaf")


def _size(b):
    return sum(int(np.size(v)) for v in tree_leaves(b))


def _prepare(a, b, x0, m):
    """Shared argument handling: (A, M, b, x0) with x0 defaulting to zeros."""
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b, x0 = tree_map(jnp.asarray, (b, x0))
    a = _as_operator(a)
    m = _identity if m is None else _as_operator(m, "preconditioner")
    return a, m, b, x0

# ----------------------------------------------------------------- CG and BiCGSTAB


def _stop_threshold(b, tol, atol):
    """Squared residual norm below which an iteration stops."""
    return jnp.maximum(jnp.square(tol) * _tree_real_inner(b, b), jnp.square(atol))


def _cg_iterate(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned conjugate gradients from x0, until the residual is small."""
    thresh = _stop_threshold(b, tol, atol)
    r0 = _tree_sub(b, A(x0))
    z0 = M(r0)
    dtype = _leaf_dtype(z0)
    rz0 = _tree_real_inner(r0, z0).astype(dtype)

    def keep_going(state):
        _, r, rz, _, k = state
        res2 = jnp.real(rz) if M is _identity else _tree_real_inner(r, r)
        return (res2 > thresh) & (k < maxiter)

    def step(state):
        x, r, rz, p, k = state
        ap = A(p)
        alpha = rz / _tree_real_inner(p, ap).astype(dtype)
        x = _axpy(alpha, p, x)
        r = _axpy(-alpha, ap, r)
        z = M(r)
        rz_new = _tree_real_inner(r, z).astype(dtype)
        p = _axpy(rz_new / rz, p, z)
        return x, r, rz_new, p, k + 1

    return lax.while_loop(keep_going, step, (x0, r0, rz0, z0, 0))[0]


def _bicgstab_iterate(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned BiCGSTAB from x0; a zero rho, alpha or omega (breakdown) stops it
    with a negative counter."""
    thresh = _stop_threshold(b, tol, atol)
    r0 = _tree_sub(b, A(x0))
    one = jnp.ones((), _leaf_dtype(b))

    def keep_going(state):
        r, k = state[1], state[-1]
        return (_tree_real_inner(r, r) > thresh) & (k < maxiter) & (k >= 0)

    def step(state):
        x, r, r_hat, alpha, omega, rho, p, v, k = state
        rho_new = _tree_inner(r_hat, r)
        beta = (rho_new / rho) * (alpha / omega)
        p = _tree_add(r, _scale(beta, _axpy(-omega, v, p)))
        p_hat = M(p)
        v = A(p_hat)
        alpha = rho_new / _tree_inner(r_hat, v)
        s = _axpy(-alpha, v, r)
        done_half = _tree_real_inner(s, s) < thresh
        s_hat = M(s)
        t = A(s_hat)
        omega = _tree_inner(t, s) / _tree_inner(t, t)
        x_half = _axpy(alpha, p_hat, x)
        x = tree_map(lambda h, f: jnp.where(done_half, h, f), x_half,
                     _axpy(omega, s_hat, x_half))
        r = tree_map(lambda h, f: jnp.where(done_half, h, f), s, _axpy(-omega, t, s))
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_new == 0, -10, k)
        return x, r, r_hat, alpha, omega, rho_new, p, v, k

    init = (x0, r0, r0, one, one, one, r0, r0, 0)
    return lax.while_loop(keep_going, step, init)[0]


def _krylov_solve(iterate, A, b, x0, tol, atol, maxiter, M, symmetric_if_real):
    A, M, b, x0 = _prepare(A, b, x0, M)
    if maxiter is None:
        maxiter = 10 * _size(b)
    _check_guess(x0, b)
    solver = functools.partial(iterate, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    symmetric = symmetric_if_real and not any(jnp.iscomplexobj(v) for v in tree_leaves(b))
    x = lax.custom_linear_solve(A, b, solve=solver, transpose_solve=solver,
                                symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve `A x = b` by (preconditioned) conjugate gradients, as JAX's
    `jax.scipy.sparse.linalg.cg`.

    `A` (a function, a square matrix or an object with `@`) must be Hermitian positive
    definite; `b` and `x0` are pytrees of arrays of one structure; `M` approximates A's
    inverse. Stops when `norm(r) <= max(tol * norm(b), atol)` or after `maxiter` steps
    (default 10 x size of b). Returns `(x, None)`. Derivatives are implicit: one more CG
    solve, through `lax.custom_linear_solve` (symmetric for real b).
    """
    return _krylov_solve(_cg_iterate, A, b, x0, tol, atol, maxiter, M, True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve `A x = b` by BiCGSTAB, as JAX's `jax.scipy.sparse.linalg.bicgstab`.

    `A` is any (square, possibly non-symmetric) linear operator: a function, a matrix or
    an object with `@`; other arguments as in `cg`. Returns `(x, None)`; derivatives are
    one more BiCGSTAB solve (of the transposed operator).
    """
    return _krylov_solve(_bicgstab_iterate, A, b, x0, tol, atol, maxiter, M, False)

# ----------------------------------------------------------------- GMRES


def _normalize(x, thresh=None):
    """(x / norm(x), norm(x)), both zero when the norm is at most `thresh` (default
    the norm dtype's epsilon)."""
    norm = _tree_norm(x)
    dtype = _leaf_dtype(x)
    if thresh is None:
        thresh = jnp.finfo(norm.dtype).eps
    thresh = jnp.real(jnp.asarray(thresh).astype(dtype))
    nonzero = norm > thresh
    unit = tree_map(lambda v: jnp.where(nonzero, v / norm.astype(dtype), 0.0), x)
    return unit, jnp.where(nonzero, norm, 0.0)


def _overlaps(Q, v):
    """Q^H v for Q a pytree of (..., n) column stacks and v a pytree of vectors."""
    parts = tree_map(lambda q, y: jnp.einsum("...n,...->n", jnp.conj(q), y,
                                             precision=_HIGHEST), Q, v)
    return functools.reduce(operator.add, tree_leaves(parts))


def _orthogonalize(Q, x, x_norm, passes=2):
    """Classical Gram-Schmidt of x against Q's columns, repeated (up to `passes` times)
    while the overlaps stay above ||x|| / sqrt(2) -> (q, overlaps)."""
    r = jnp.zeros(tree_leaves(Q)[0].shape[-1], tree_leaves(Q)[0].dtype)
    inv_sqrt2 = 1.0 / np.sqrt(2.0)

    def one_pass(state):
        k, q, r, q_scaled = state
        h = _overlaps(Q, q)
        q = _tree_sub(q, tree_map(lambda c: jnp.matmul(c, h, precision=_HIGHEST), Q))
        r = r + h

        def renorm(s):
            k, _, q, _ = s
            return k, False, q, _normalize(q)[1] * inv_sqrt2

        _, _, q, q_scaled = lax.while_loop(lambda s: s[1] & (s[0] < passes - 1), renorm,
                                           (k, True, q, q_scaled))
        return k + 1, q, r, q_scaled

    def again(state):
        k, _, r, q_scaled = state
        return (k < passes - 1) & (_normalize(r)[1] < q_scaled)

    state = one_pass((0, x, r, x_norm * inv_sqrt2))
    _, q, r, _ = lax.while_loop(again, one_pass, state)
    return q, r


def _arnoldi_step(k, A, M, V, H):
    """Column k+1 of the Krylov basis V (from M A V[:, k]) and row k of H; the third
    result says the subspace became invariant."""
    dtype = _leaf_dtype(V)
    v = M(A(tree_map(lambda c: c[..., k], V)))
    _, v_norm = _normalize(v)
    v, h = _orthogonalize(V, v, v_norm)
    unit, new_norm = _normalize(v, thresh=jnp.finfo(dtype).eps * v_norm)
    V = tree_map(lambda c, u: c.at[..., k + 1].set(u), V, unit)
    H = H.at[k, :].set(h.at[k + 1].set(new_norm.astype(dtype)))
    return V, H, new_norm == 0.0


def _rotate(h, i, c, s):
    """Apply the Givens rotation (c, s) to entries i, i+1 of h."""
    a, b = h[i], h[i + 1]
    return h.at[i].set(jnp.conj(c) * a - jnp.conj(s) * b).at[i + 1].set(s * a + c * b)


def _givens(a, b):
    """(c, s) of the rotation that zeroes b against a."""
    small_a = jnp.abs(a) < jnp.abs(b)
    t = -jnp.where(small_a, a, b) / jnp.where(small_a, b, a)
    r = lax.rsqrt(1 + jnp.abs(t) ** 2).astype(t.dtype)
    b_zero = jnp.abs(b) == 0
    c = jnp.where(b_zero, 1, jnp.where(small_a, r * t, r))
    s = jnp.where(b_zero, 0, jnp.where(small_a, r, r * t))
    return c, s


def _krylov_basis(unit_residual, restart):
    return tree_map(lambda v: jnp.pad(v[..., None], ((0, 0),) * v.ndim + ((0, restart),)),
                    unit_residual)


def _restart_incremental(A, b, x0, unit_residual, res_norm, ptol, restart, M):
    """One GMRES cycle whose least-squares problem is kept triangular by Givens rotations
    as the basis grows; stops early once the rotated residual is below ptol."""
    V = _krylov_basis(unit_residual, restart)
    dtype = _leaf_dtype(b)
    R = jnp.eye(restart, restart + 1, dtype=dtype)
    rotations = jnp.zeros((restart, 2), dtype)
    g = jnp.zeros(restart + 1, dtype).at[0].set(res_norm.astype(dtype))

    def step(state):
        k, _, V, R, g, rotations = state
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row = lax.fori_loop(0, k, lambda i, h: _rotate(h, i, *rotations[i, :]), H[k, :])
        c, s = _givens(row[k], row[k + 1])
        rotations = rotations.at[k, :].set(jnp.stack([c, s]))
        R = R.at[k, :].set(_rotate(row, k, c, s))
        g = _rotate(g, k, c, s)
        return k + 1, jnp.abs(g[k + 1]), V, R, g, rotations

    state = (0, res_norm, V, R, g, rotations)
    _, _, V, R, g, _ = lax.while_loop(lambda s: (s[0] < restart) & (s[1] > ptol), step, state)
    y = _solve_triangular(R[:, :-1].T, g[:-1])
    return _finish_cycle(A, b, x0, V, y, M)


def _restart_batched(A, b, x0, unit_residual, res_norm, ptol, restart, M):
    """One GMRES cycle: the whole Arnoldi basis first, then the least-squares problem
    through its normal equations (Cholesky)."""
    del ptol
    V = _krylov_basis(unit_residual, restart)
    dtype = _leaf_dtype(b)
    H = jnp.eye(restart, restart + 1, dtype=dtype)

    def step(state):
        V, H, _, k = state
        V, H, stop = _arnoldi_step(k, A, M, V, H)
        return V, H, stop, k + 1

    V, H, _, _ = lax.while_loop(lambda s: (s[3] < restart) & jnp.logical_not(s[2]), step,
                                (V, H, False, 0))
    g = jnp.zeros(restart + 1, dtype).at[0].set(res_norm.astype(dtype))
    ht = H.T
    gram = jnp.matmul(jnp.conj(ht).T, ht)
    y = _dense_solve(gram, jnp.matmul(jnp.conj(ht).T, g), assume_a="pos")
    return _finish_cycle(A, b, x0, V, y, M)


def _finish_cycle(A, b, x0, V, y, M):
    """x0 plus the basis combination y, and the new preconditioned residual."""
    x = _tree_add(x0, tree_map(lambda c: jnp.matmul(c[..., :-1], y), V))
    unit, norm = _normalize(M(_tree_sub(b, A(x))))
    return x, unit, norm


def _gmres_iterate(A, b, x0, atol, ptol, restart, maxiter, M, cycle):
    """Restart `cycle` until the preconditioned residual norm is at most atol."""
    unit, norm = _normalize(M(_tree_sub(b, A(x0))))

    def step(state):
        x, k, unit, norm = state
        x, unit, norm = cycle(A, b, x, unit, norm, ptol, restart, M)
        return x, k + 1, unit, norm

    return lax.while_loop(lambda s: (s[1] < maxiter) & (s[3] > atol), step,
                          (x0, 0, unit, norm))[0]


_GMRES_CYCLES = {"incremental": _restart_incremental, "batched": _restart_batched}


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Solve `A x = b` by restarted GMRES, as JAX's `jax.scipy.sparse.linalg.gmres`.

    Each cycle builds a Krylov basis of dimension `restart` (at most b's size) and
    projects the solution on it; at most `maxiter` cycles (default 10 x size of b), until
    `norm(r) <= max(tol * norm(b), atol)`. `solve_method` is 'batched' (least squares
    after the whole basis) or 'incremental' (Givens rotations, may stop inside a
    cycle). Returns `(x, info)`, info -1 if x holds a NaN, else 0. Derivatives are one
    more GMRES solve, through `lax.custom_linear_solve`.
    """
    A, M, b, x0 = _prepare(A, b, x0, M)
    size = _size(b)
    if maxiter is None:
        maxiter = 10 * size
    restart = min(restart, size)
    if tree_structure(x0) != tree_structure(b):
        _check_guess(x0, b)
    if solve_method not in _GMRES_CYCLES:
        raise ArgumentValueError(f"invalid solve_method {solve_method}, must be either "
                                 "'incremental' or 'batched'",
                                 hint="solve_method='batched' or solve_method='incremental'")
    b_norm = _tree_norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = _tree_norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
    cycle = _GMRES_CYCLES[solve_method]

    def solver(op, rhs):
        return _gmres_iterate(op, rhs, x0, atol, ptol, restart, maxiter, M, cycle)

    x = lax.custom_linear_solve(A, b, solve=solver, transpose_solve=solver)
    info = jnp.where(jnp.isnan(_tree_norm(x)), -1, 0)
    return x, info
