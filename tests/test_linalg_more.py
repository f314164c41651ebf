"""The lax.linalg members added for issue 13 (`tridiagonal_solve` with its JVP,
transpose and batching; `tridiagonal`; `ormqr`; `symmetric_product`;
`cholesky_update`) and scipy.linalg's `rsf2csf`, `funm`, `solve_sylvester`,
`qr_multiply`: against JAX 0.10.2's stored values (tests/oracle/linalg_more.json,
recorded by tests/oracle/record_linalg_more.py), NumPy references and finite
differences."""

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
import astjax.scipy.linalg as S
from astjax.lax import linalg as L
from astjax.primitives.householder import ormqr_p, tridiagonal_p
from astjax.primitives.linalg import tridiagonal_solve_p
from oracle import compare

J = compare.load("linalg_more")
DL = np.array([0., 1., -0.5, 0.25], np.float32)
D = np.array([4., 3., 5., 2.], np.float32)
DU = np.array([1., 0.5, -1., 0.], np.float32)
B = np.arange(8, dtype=np.float32).reshape(4, 2)
A = np.array([[4., 1., 2., 0.5], [1., 3., 0., 1.], [2., 0., 5., 1.], [0.5, 1., 1., 2.]],
             np.float32)


def _loss(dl, d, du, b):
    return (L.tridiagonal_solve(dl, d, du, b) ** 2).sum()


def test_tridiagonal_solve_values_and_gradient_match_jax():
    np.testing.assert_allclose(L.tridiagonal_solve(DL, D, DU, B), J["tds"], rtol=1e-5)
    np.testing.assert_allclose(jax.jit(L.tridiagonal_solve)(DL, D, DU, B), J["tds"],
                               rtol=1e-5)
    grads = jax.grad(_loss, argnums=(0, 1, 2, 3))(DL, D, DU, B)
    for g, want in zip(grads, J["tds_grad"]):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-6)
    ref = tridiagonal_solve_p.impl(DL, D, DU, B)
    np.testing.assert_allclose(ref, J["tds"], rtol=1e-5)


def test_tridiagonal_solve_derivatives_by_finite_differences():
    args = [x.astype(np.float64) for x in (DL, D, DU, B)]
    with jax.enable_x64():
        grads = jax.grad(_loss, argnums=(0, 1, 2, 3))(*args)
        for k, g in enumerate(grads):
            num = np.zeros_like(args[k])
            for idx in np.ndindex(args[k].shape):
                hi = [a.copy() for a in args]
                lo = [a.copy() for a in args]
                hi[k][idx] += 1e-6
                lo[k][idx] -= 1e-6
                num[idx] = (float(_loss(*hi)) - float(_loss(*lo))) / 2e-6
            if k == 0:
                num[0] = 0.   # dl[0] is not read
            if k == 2:
                num[-1] = 0.  # nor du[-1]
            np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6)
        # linear in b: the transpose is the solve with A^T
        _, vjp = jax.vjp(lambda b: L.tridiagonal_solve(*args[:3], b), args[3])
        ct = np.ones((4, 2))
        dense = np.diag(args[1]) + np.diag(args[0][1:], -1) + np.diag(args[2][:-1], 1)
        np.testing.assert_allclose(vjp(ct)[0], np.linalg.solve(dense.T, ct), rtol=1e-10)


def test_tridiagonal_solve_batches():
    bs = np.stack([B, 2 * B])
    out = jax.vmap(lambda b: L.tridiagonal_solve(DL, D, DU, b))(bs)
    np.testing.assert_allclose(out[1], 2 * np.asarray(J["tds"]), rtol=1e-5)
    ds = np.stack([D, D + 1])
    out = jax.vmap(lambda d: L.tridiagonal_solve(DL, d, DU, B))(ds)
    np.testing.assert_allclose(out[0], J["tds"], rtol=1e-5)
    np.testing.assert_allclose(out[1], tridiagonal_solve_p.impl(DL, D + 1, DU, B), rtol=1e-5)


def test_tridiagonal_solve_singular_is_nan_and_shapes_checked():
    out = L.tridiagonal_solve(np.zeros(3, np.float32), np.zeros(3, np.float32),
                              np.zeros(3, np.float32), np.ones((3, 1), np.float32))
    assert np.isnan(np.asarray(out)).all()
    with pytest.raises(TypeError):
        L.tridiagonal_solve(DL, D, DU[:3], B)


@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal_matches_jax_and_reference(lower):
    got = L.tridiagonal(A, lower=lower)
    for g, want in zip(got, J[f"trid_{lower}"]):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
    for g, r in zip(got, tridiagonal_p.impl(A, lower=lower)):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    # T has A's eigenvalues
    _, d, e, _ = got
    t = np.diag(np.asarray(d)) + np.diag(np.asarray(e), 1) + np.diag(np.asarray(e), -1)
    np.testing.assert_allclose(np.linalg.eigvalsh(t), np.linalg.eigvalsh(A), rtol=1e-5)


def test_tridiagonal_complex_and_batched():
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))).astype(np.complex64)
    a = a + np.conj(np.swapaxes(a, -1, -2))
    got = jax.vmap(L.tridiagonal)(a)
    for g, r in zip(got, tridiagonal_p.impl(a)):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)
    assert got[1].dtype == np.float32 and got[3].dtype == np.complex64


def test_ormqr_matches_jax():
    h, taus = jnp.linalg.qr(A[:, :3], mode="raw")
    c = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(L.ormqr(h.mT, taus, c, left=True, transpose=True),
                               J["ormqr"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(L.ormqr(h.mT, taus, c.T, left=False), J["ormqr_right"],
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ormqr_p.impl(np.asarray(h.mT), np.asarray(taus), c, left=True,
                                            transpose=True), J["ormqr"], rtol=1e-5, atol=1e-5)
    q, _ = jnp.linalg.qr(A[:, :3], mode="complete")
    np.testing.assert_allclose(L.ormqr(h.mT, taus, np.eye(4, dtype=np.float32)), q, atol=1e-5)


def test_symmetric_product_and_cholesky_update():
    a = A[:, :3]
    # JAX 0.10.2 (values from /work/jaxref): alpha a a^T + beta c
    np.testing.assert_allclose(L.symmetric_product(a, A, alpha=2., beta=0.5),
                               2 * a @ a.T + 0.5 * A, rtol=1e-6)
    r = np.linalg.cholesky(A).T
    w = np.array([1., -2., 0.5, 0.], np.float32)
    up = L.cholesky_update(r, w)
    np.testing.assert_allclose(np.asarray(up).T @ np.asarray(up), A + np.outer(w, w),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(up, np.linalg.cholesky(A + np.outer(w, w)).T, rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(ValueError):
        L.cholesky_update(r, w[:3])


def test_rsf2csf_and_funm():
    a = np.array([[1., 2, 0], [0, 1, 2], [2, 0, 1]], np.float32)
    t, z = S.rsf2csf(*S.schur(a))
    assert np.allclose(np.tril(np.asarray(t), -1), 0)
    np.testing.assert_allclose(z @ t @ np.conj(np.asarray(z)).T, a, atol=2e-6)
    f = S.funm(A[:3, :3] - np.eye(3, dtype=np.float32) * 2, jnp.exp)
    np.testing.assert_allclose(np.real(f), J["funm"], rtol=1e-4, atol=1e-5)
    f, err = S.funm(a, jnp.exp, disp=False)
    np.testing.assert_allclose(np.real(f), S.expm(a), rtol=1e-4)
    assert float(err) < 1e-5


def test_solve_sylvester():
    b = A[:2, :2] + 1
    c = np.arange(8, dtype=np.float32).reshape(4, 2)
    x = S.solve_sylvester(A, b, c)
    np.testing.assert_allclose(x, J["sylv"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(A @ x + x @ b, c, atol=1e-4)
    np.testing.assert_allclose(S.solve_sylvester(A, b, c, method="eigen"), J["sylv"],
                               rtol=1e-3, atol=1e-4)
    assert np.isnan(np.asarray(S.solve_sylvester(np.eye(1), -np.eye(1), np.eye(1)))).all()
    batched = S.solve_sylvester(np.stack([A, A]), b, np.stack([c, 2 * c]))
    np.testing.assert_allclose(batched[1], 2 * np.asarray(J["sylv"]), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError):
        S.solve_sylvester(A, b, c, method="qz")


def test_qr_multiply():
    a = np.array([[1., 1.], [1., 2.], [1., 3.], [1., 4.]], np.float32)
    bvec = np.array([2., 4., 5., 4.], np.float32)
    qtb, r = S.qr_multiply(a, bvec)          # JAX 0.10.2: [-7.5, 1.56525], R [[-2,-5],[0,2.23607]]
    np.testing.assert_allclose(qtb, [-7.5, 1.56525], rtol=1e-5)
    np.testing.assert_allclose(r, [[-2., -5.], [0., 2.236068]], rtol=1e-5)
    q, _ = S.qr(a, mode="economic")
    ql, _ = S.qr_multiply(a, np.eye(2, dtype=np.float32), mode="left")
    np.testing.assert_allclose(ql, q, atol=1e-6)
    with pytest.raises(ValueError):
        S.qr_multiply(a, np.ones(3, np.float32))


def test_ormqr_batches():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(3, 4, 3)).astype(np.float32)
    c = rng.normal(size=(3, 4, 2)).astype(np.float32)
    h, taus = jax.vmap(L.geqrf)(a)
    got = jax.vmap(lambda h, t, c: L.ormqr(h, t, c, transpose=True))(h, taus, c)
    for i in range(3):
        np.testing.assert_allclose(got[i], ormqr_p.impl(np.asarray(h[i]), np.asarray(taus[i]),
                                                        c[i], transpose=True), atol=1e-5)


def test_qdwh_polar_decomposition_as_jax():
    a = np.array([[4., 1., 2.], [1., 3., 0.], [2., 0., 5.], [0.5, 1., 1.]], np.float32)
    u, h, k, ok = L.qdwh(a)
    # JAX 0.10.2: 4 iterations, converged; u's first row [0.997207, -0.003027, -0.002344]
    assert (int(k), bool(ok)) == (4, True)
    np.testing.assert_allclose(np.asarray(u)[0], [0.997207, -0.003027, -0.002344], atol=2e-6)
    np.testing.assert_allclose(np.asarray(u).T @ np.asarray(u), np.eye(3), atol=1e-5)
    np.testing.assert_allclose(u @ h, a, atol=1e-5)
    np.testing.assert_allclose(h, np.asarray(h).T)
    # JAX: not converged after 3 iterations on this scaled matrix
    _, _, k, ok = L.qdwh(a[:3] * 1e-3, max_iterations=3)
    assert (int(k), bool(ok)) == (3, False)
    c = (a + 1j * a[::-1]).astype(np.complex64)
    u, h, k, ok = jax.jit(L.qdwh)(c)
    np.testing.assert_allclose(u @ h, c, atol=1e-5)
    assert bool(ok)


PQ = np.array([[1., 5., 2.], [2., 1., 7.], [0.5, 3., 1.], [1., 1., 1.]], np.float32)


def test_pivoted_qr_matches_jax():
    # JAX 0.10.2 (values from /work/jaxref): p = [2, 1, 0], r as below; wide: p = [1, 0, 3, 2]
    r_jax = [[-7.4162, -2.83164, -2.3597], [0., 5.28978, 0.53276], [0., 0., 0.63086]]
    for full in (True, False):
        q, r, p = L.qr(PQ, pivoting=True, full_matrices=full)
        assert np.asarray(p).tolist() == [2, 1, 0] and p.dtype == np.int32
        np.testing.assert_allclose(np.asarray(r)[:3], r_jax, atol=2e-5)
        np.testing.assert_allclose(q @ r, PQ[:, np.asarray(p)], atol=1e-5)
    q, r, p = L.qr(PQ.T, pivoting=True)
    assert np.asarray(p).tolist() == [1, 0, 3, 2]
    np.testing.assert_allclose(np.asarray(r)[0], [-7.34847, -2.85774, -1.36083, -1.49691],
                               atol=2e-5)
    # the reference agrees with LAPACK's geqp3
    from astjax.primitives.factorizations import qr_p
    q2, r2, p2 = qr_p.impl(PQ, full_matrices=False, pivoting=True)
    assert p2.tolist() == [2, 1, 0]
    np.testing.assert_allclose(r2, r_jax, atol=2e-5)
    # batched
    _, _, pb = jax.vmap(lambda a: L.qr(a, pivoting=True))(np.stack([PQ, PQ[:, ::-1]]))
    assert np.asarray(pb).tolist() == [[2, 1, 0], [0, 1, 2]]


def test_pivoted_qr_gradient_and_scipy_forms():
    g = jax.grad(lambda a: L.qr(a, pivoting=True, full_matrices=False)[1].sum())(PQ)
    # JAX 0.10.2
    np.testing.assert_allclose(g, [[0.43127, 0.52932, -1.41805], [-1.35331, -1.26183, -0.43601],
                                   [0.23033, 0.3577, -0.81665], [0.96411, 0.00024, -0.71137]],
                               atol=2e-5)
    q, r, p = S.qr(PQ, pivoting=True, mode="economic")
    assert np.asarray(p).tolist() == [2, 1, 0]
    r_only, p_only = S.qr(PQ, pivoting=True, mode="r")
    np.testing.assert_allclose(r_only[:3], r, atol=1e-6)
    out, r3, p3 = S.qr_multiply(PQ, np.ones(4, np.float32), pivoting=True)
    np.testing.assert_allclose(out, np.ones(4) @ np.asarray(q), atol=1e-5)
