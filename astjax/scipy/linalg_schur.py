"""The Schur-form and QR-multiply members of `astjax.scipy.linalg` (JAX's
`jax.scipy.linalg`), re-exported there:

- `rsf2csf`: real Schur form -> complex Schur form (a Givens rotation per 2x2 block,
  SciPy's algorithm), batched;
- `funm`: f(A) for a scalar function f, from the complex Schur form and Parlett's
  recurrence (Golub & Van Loan, algorithm 11.1.1), `disp=False` adds SciPy's error
  estimate;
- `solve_sylvester`: X with A X + X B = C, by Bartels-Stewart on complex Schur forms
  (a triangular solve per column of the transformed problem) or from eigen-
  decompositions (`method='eigen'`); NaN where eig(A)_i + eig(B)_j is within `tol` of
  zero, as JAX;
- `qr_multiply`: Q @ c or c @ Q for the QR of `a`, without forming Q (LAPACK geqrf +
  ormqr; with `pivoting`, through geqp3's Q).

All run on `lax.linalg` (LAPACK), so they stage, compile and batch like the rest.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from .. import numpy as jnp
from ..errors import ArgumentValueError, ShapeValueError
from ..numpy.operands import asarray_operand, promote_dtypes_inexact
from ..numpy.vectorize import vectorize as _vectorize

__all__ = ["rsf2csf", "funm", "solve_sylvester", "qr_multiply"]


def _square(x, name):
    shape = core.get_aval(x).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeValueError(f"Input '{name}' must be square.")
    return shape


def _complex(x):
    dt = core.get_aval(x).dtype
    if dtypes.issubdtype(dt, np.complexfloating):
        return x
    return lax.convert_element_type(x, np.result_type(dt, np.complex64))


def _adj(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _rsf2csf_one(t, z):
    t, z = _complex(t), _complex(z)
    n = core.get_aval(t).shape[-1]
    eps = float(np.finfo(core.get_aval(t).dtype).eps)
    rows = jnp.arange(n)
    for m in range(n - 1, 0, -1):
        sub = t[m, m - 1]
        split = jnp.abs(sub) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
        # the rotation G that makes the 2x2 block at (m-1, m-1) upper triangular
        mu = jnp.linalg.eigvals(t[m - 1:m + 1, m - 1:m + 1]) - t[m, m]
        r = jnp.sqrt(jnp.abs(mu[0]) ** 2 + jnp.abs(sub) ** 2).astype(t.dtype)
        c, s = mu[0] / r, sub / r
        g = jnp.stack([jnp.stack([jnp.conj(c), s]), jnp.stack([-s, c])])
        gh = _adj(g)
        # G from the left on rows m-1, m (columns m-1..), G^H from the right on
        # columns m-1, m (rows ..m) and on Z's columns m-1, m
        new_rows = jnp.where(rows >= m - 1, g @ t[m - 1:m + 1], t[m - 1:m + 1])
        rotated = t.at[m - 1:m + 1].set(new_rows)
        new_cols = jnp.where((rows < m + 1)[:, None], rotated[:, m - 1:m + 1] @ gh,
                             rotated[:, m - 1:m + 1])
        rotated = rotated.at[:, m - 1:m + 1].set(new_cols)
        t = jnp.where(split, rotated, t).at[m, m - 1].set(0)
        z = jnp.where(split, z.at[:, m - 1:m + 1].set(z[:, m - 1:m + 1] @ gh), z)
    return t, z


def rsf2csf(T, Z, check_finite=True):  # noqa: N803
    """(T, Z) in complex Schur form from the real Schur form (T, Z) of
    `scipy.linalg.schur(a)`: T upper triangular, Z unitary, Z T Z^H = a."""
    T, Z = asarray_operand(T), asarray_operand(Z)  # noqa: N806
    tshape, zshape = _square(T, "T"), _square(Z, "Z")
    if tshape[-1] != zshape[-1]:
        raise ShapeValueError(f"Input array shapes must match: Z: {zshape} vs. T: {tshape}")
    T, Z = promote_dtypes_inexact(T, Z)  # noqa: N806
    return _vectorize(_rsf2csf_one, signature="(n,n),(n,n)->(n,n),(n,n)")(T, Z)


def _parlett(f, t):
    """Parlett's recurrence: the upper-triangular F = f(T) from its diagonal, one
    superdiagonal after the other; also the smallest |T_jj - T_ii| met."""
    n = core.get_aval(t).shape[-1]
    minden = jnp.abs(t[0, 0])
    idx = jnp.arange(n)
    for p in range(1, n):
        for i in range(n - p):
            j = i + p
            s = t[i, j] * (f[j, j] - f[i, i])
            between = (idx > i) & (idx < j)
            s = s + (jnp.where(between, t[i], 0) @ jnp.where(between, f[:, j], 0)
                     - jnp.where(between, f[i], 0) @ jnp.where(between, t[:, j], 0))
            den = t[j, j] - t[i, i]
            f = f.at[i, j].set(jnp.where(den != 0, s / den, s))
            minden = jnp.minimum(minden, jnp.abs(den))
    return f, minden


def funm(A, func, disp=True):  # noqa: N803
    """f(A) for a square matrix A and a function `func` of an array of its
    eigenvalues (complex result); with `disp=False`, (f(A), estimated relative
    error) as SciPy."""
    a = asarray_operand(A)
    shape = core.get_aval(a).shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ShapeValueError("expected square array_like input")
    [a] = promote_dtypes_inexact(a)
    t, z = lax.linalg.schur(a)
    t, z = rsf2csf(t, z)
    f = jnp.diag(func(jnp.diag(t))).astype(core.get_aval(t).dtype)
    f, minden = _parlett(f, t)
    f = z @ f @ _adj(z)
    if disp:
        return f
    tol = float(np.finfo(core.get_aval(f).dtype).eps)
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(jnp.any(jnp.isinf(f)), np.inf, jnp.minimum(1, jnp.maximum(
        tol, (tol / minden) * jnp.linalg.norm(jnp.triu(t, 1), 1))))
    return f, err


def _triangular_sylvester(r, s, f):
    """Y with R Y + Y S = F for upper-triangular R (m, m) and lower-triangular S
    (n, n): column j (last first) solves (R + S_jj I) y_j = f_j - sum_{k>j} y_k S_kj."""
    m, n = core.get_aval(f).shape
    eye = jnp.eye(m, dtype=core.get_aval(r).dtype)
    y = jnp.zeros_like(f)
    for j in range(n - 1, -1, -1):
        rhs = f[:, j] - y[:, j + 1:] @ s[j + 1:, j]
        col = lax.linalg.triangular_solve(r + s[j, j] * eye, rhs[:, None], left_side=True,
                                          lower=False)
        y = y.at[:, j].set(col[:, 0])
    return y


def _sylvester_one(a, b, c, *, method, tol):
    if method == "schur":
        ra, ua = lax.linalg.schur(_complex(a))
        sb, vb = lax.linalg.schur(_adj(_complex(b)))   # B = V S^H V^H
        f = _adj(ua) @ c.astype(ra.dtype) @ vb
        y = _triangular_sylvester(ra, _adj(sb), f)
        x = ua @ y @ _adj(vb)
        ea, eb = jnp.diagonal(ra), jnp.conj(jnp.diagonal(sb))
    else:
        ea, ua = jnp.linalg.eig(a)
        eb, ub = jnp.linalg.eig(b)
        f = jnp.linalg.solve(ua, c.astype(ea.dtype) @ ub)
        x = ua @ (f / (ea[:, None] + eb[None, :])) @ jnp.linalg.inv(ub)
    if not dtypes.issubdtype(core.get_aval(c).dtype, np.complexfloating):
        x = jnp.real(x)
    singular = jnp.any(jnp.abs(ea[:, None] + eb[None, :]) < tol)
    return jnp.where(singular, jnp.full_like(x, np.nan), x)


def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):  # noqa: N803
    """X with A X + X B = C for A (..., m, m), B (..., n, n), C (..., m, n) (batch
    dimensions broadcast); `method` 'schur' (Bartels-Stewart, default) or 'eigen'.
    NaN where eig(A)_i + eig(B)_j is within `tol` of zero (no unique solution)."""
    if method not in ("schur", "eigen"):
        raise ArgumentValueError(f'Unrecognized method {method}. The two valid methods are '
                                 f'either "schur" or "eigen".')
    a, b, c = promote_dtypes_inexact(*map(asarray_operand, (A, B, C)))
    _square(a, "A")
    _square(b, "B")
    m, n = core.get_aval(a).shape[-1], core.get_aval(b).shape[-1]
    if core.get_aval(c).shape[-2:] != (m, n):
        raise ShapeValueError(f"solve_sylvester: C must be (..., {m}, {n}) for A (..., {m}, "
                              f"{m}) and B (..., {n}, {n}), got {core.get_aval(c).shape}")
    return _vectorize(lambda a, b, c: _sylvester_one(a, b, c, method=method, tol=tol),
                      signature="(m,m),(n,n),(m,n)->(m,n)")(a, b, c)


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """(Q @ c, R) (`mode='left'`) or (c @ Q, R) (`mode='right'`, default) for the
    economic QR of `a` (..., M, N), without forming Q; `conjugate` uses conj(Q). A 1-D
    c is a column (left) or row (right) vector and the result is 1-D. With `pivoting`,
    the QR is column-pivoted and its permutation P is appended: (result, R, P)."""
    if mode not in ("right", "left"):
        raise ArgumentValueError(f"mode must be 'right' or 'left', got {mode!r}")
    a, c = promote_dtypes_inexact(asarray_operand(a), asarray_operand(c))
    onedim = core.get_aval(c).ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = core.get_aval(a).shape[-2:]
    k = min(m, n)
    cs = core.get_aval(c).shape
    if mode == "left" and cs[-2] != k:
        raise ShapeValueError(f"Array shapes are not compatible for Q @ c operation: a has "
                              f"shape {tuple(core.get_aval(a).shape)} so Q has {k} columns, "
                              f"but c has {cs[-2]} rows (expected {k}).")
    if mode == "right" and cs[-1] != m:
        raise ShapeValueError(f"Array shapes are not compatible for c @ Q operation: a has "
                              f"shape {tuple(core.get_aval(a).shape)} so Q has {m} rows, "
                              f"but c has {cs[-1]} columns (expected {m}).")
    batch = jnp.broadcast_shapes(core.get_aval(a).shape[:-2], cs[:-2])
    a = jnp.broadcast_to(a, batch + (m, n))
    c = jnp.broadcast_to(c, batch + cs[-2:])
    if pivoting:   # the reflectors of the pivoted QR (geqp3) are its Q's
        q, r, p = lax.linalg.qr(a, pivoting=True, full_matrices=False)
    else:
        h, taus = lax.linalg.geqrf(a)
        r = jnp.triu(h[..., :k, :])
    cplx = dtypes.issubdtype(core.get_aval(a).dtype, np.complexfloating)
    if conjugate and cplx:
        c = jnp.conj(c)
    if pivoting:
        out = q @ c if mode == "left" else c @ q
    elif mode == "left":   # Q (m, k) @ c (k, p): pad c to m rows, keep Q's first k columns
        padded = jnp.concatenate([c, jnp.zeros(batch + (m - k, cs[-1]), c.dtype)], axis=-2)
        out = lax.linalg.ormqr(h, taus, padded, left=True)
    else:                  # c (p, m) @ Q (m, k): the first k columns of c @ Q_full
        out = lax.linalg.ormqr(h, taus, c, left=False)[..., :k]
    if conjugate and cplx:
        out = jnp.conj(out)
    if onedim:
        out = out.reshape(out.shape[:-2] + (-1,))
    return (out, r, p) if pivoting else (out, r)
