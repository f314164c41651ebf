"""Cases for `jax.numpy.linalg`, `jax.scipy.linalg` and `jax.lax.linalg` on LAPACK,
and a recorder of JAX's values (see README.md). Both run the same LAPACK kernels, so
the stored values include JAX's eigenvector and singular-vector signs.

`CASES` is a list of (name, function of (module namespace, *arrays), input names);
`inputs()` makes the arrays. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_linalg.py` writes linalg.json."""
import json
import sys
from pathlib import Path

import numpy as np


def inputs():
    r = np.random.RandomState(7)
    a = r.randn(4, 4).astype(np.float32)
    c = (r.randn(3, 3) + 1j * r.randn(3, 3)).astype(np.complex64)
    return {
        "a": a,
        "sym": (a + a.T).astype(np.float32),
        "spd": (a @ a.T + np.eye(4)).astype(np.float32),
        "tall": r.randn(5, 3).astype(np.float32),
        "wide": r.randn(2, 4).astype(np.float32),
        "herm": (c + c.conj().T).astype(np.complex64),
        "c": c,
        "batch": r.randn(2, 3, 3).astype(np.float32),
        "b": r.randn(4).astype(np.float32),
        "bm": r.randn(4, 2).astype(np.float32),
        "sing": np.array([[1., 2.], [2., 4.]], np.float32),
        "ones": np.ones((2, 2), np.float32),
        "small": (0.3 * r.randn(3, 3)).astype(np.float32),
        "big": (3.0 * r.randn(3, 3)).astype(np.float32),
        "ut": np.triu(r.randn(4, 4) + 4 * np.eye(4)).astype(np.float32),
        # positive definite in either triangle, not symmetric: scipy's cholesky reads one
        "spd_skew": (a @ a.T + np.eye(4) + np.triu(a, 1) - np.tril(a.T, -1)).astype(np.float32),
        "piv_wild": np.array([[4, -1, 7, -9], [-5, 0, 2, 3]], np.int32),
    }


CASES = [
    ("eigh", lambda m, x: tuple(m.jnp.linalg.eigh(x)), ["sym"]),
    ("eigh_c", lambda m, x: tuple(m.jnp.linalg.eigh(x)), ["herm"]),
    ("eigh_batch", lambda m, x: tuple(m.jnp.linalg.eigh(x + np.swapaxes(x, -1, -2))), ["batch"]),
    ("eigvalsh", lambda m, x: m.jnp.linalg.eigvalsh(x), ["spd"]),
    ("svd", lambda m, x: tuple(m.jnp.linalg.svd(x)), ["a"]),
    ("svd_tall", lambda m, x: tuple(m.jnp.linalg.svd(x, full_matrices=False)), ["tall"]),
    ("svd_wide_full", lambda m, x: tuple(m.jnp.linalg.svd(x)), ["wide"]),
    ("svd_c", lambda m, x: tuple(m.jnp.linalg.svd(x)), ["c"]),
    ("svd_herm", lambda m, x: tuple(m.jnp.linalg.svd(x, hermitian=True)), ["sym"]),
    ("svdvals", lambda m, x: m.jnp.linalg.svdvals(x), ["tall"]),
    ("qr", lambda m, x: tuple(m.jnp.linalg.qr(x)), ["a"]),
    ("qr_tall_complete", lambda m, x: tuple(m.jnp.linalg.qr(x, mode="complete")), ["tall"]),
    ("qr_wide", lambda m, x: tuple(m.jnp.linalg.qr(x)), ["wide"]),
    ("qr_c", lambda m, x: tuple(m.jnp.linalg.qr(x)), ["c"]),
    ("qr_r", lambda m, x: m.jnp.linalg.qr(x, mode="r"), ["tall"]),
    ("eig", lambda m, x: tuple(m.jnp.linalg.eig(x)), ["a"]),
    ("eig_c", lambda m, x: tuple(m.jnp.linalg.eig(x)), ["c"]),
    ("eigvals", lambda m, x: m.jnp.linalg.eigvals(x), ["batch"]),
    ("solve", lambda m, x, y: m.jnp.linalg.solve(x, y), ["a", "b"]),
    ("solve_m", lambda m, x, y: m.jnp.linalg.solve(x, y), ["a", "bm"]),
    ("inv", lambda m, x: m.jnp.linalg.inv(x), ["a"]),
    ("inv_singular", lambda m, x: m.jnp.linalg.inv(x), ["ones"]),
    ("det", lambda m, x: m.jnp.linalg.det(x), ["a"]),
    ("det_batch", lambda m, x: m.jnp.linalg.det(x), ["batch"]),
    ("det_sing", lambda m, x: m.jnp.linalg.det(x), ["sing"]),
    ("slogdet", lambda m, x: tuple(m.jnp.linalg.slogdet(x)), ["a"]),
    ("slogdet_c", lambda m, x: tuple(m.jnp.linalg.slogdet(x)), ["c"]),
    ("pinv", lambda m, x: m.jnp.linalg.pinv(x), ["tall"]),
    ("pinv_sing", lambda m, x: m.jnp.linalg.pinv(x), ["sing"]),
    ("matrix_rank", lambda m, x: m.jnp.linalg.matrix_rank(x), ["sing"]),
    ("lstsq", lambda m, x, y: tuple(m.jnp.linalg.lstsq(x, y[:5] if y.shape[0] > 5 else
                                                     m.jnp.concatenate([y, y[:1]]))), ["tall", "b"]),
    ("norm2", lambda m, x: m.jnp.linalg.norm(x, 2), ["a"]),
    ("norm_nuc", lambda m, x: m.jnp.linalg.norm(x, "nuc"), ["tall"]),
    ("cond", lambda m, x: m.jnp.linalg.cond(x), ["a"]),
    ("cond_1", lambda m, x: m.jnp.linalg.cond(x, 1), ["a"]),
    ("cholesky_notpd", lambda m, x: m.jnp.linalg.cholesky(x), ["sym"]),
    ("sp_lu", lambda m, x: tuple(m.jsp.linalg.lu(x)), ["a"]),
    ("sp_lu_wide", lambda m, x: tuple(m.jsp.linalg.lu(x)), ["wide"]),
    ("sp_lu_factor", lambda m, x: tuple(m.jsp.linalg.lu_factor(x)), ["a"]),
    ("sp_lu_solve", lambda m, x, y: m.jsp.linalg.lu_solve(m.jsp.linalg.lu_factor(x), y), ["a", "bm"]),
    ("sp_lu_solve_t", lambda m, x, y: m.jsp.linalg.lu_solve(m.jsp.linalg.lu_factor(x), y, trans=1),
     ["a", "b"]),
    ("sp_qr", lambda m, x: tuple(m.jsp.linalg.qr(x)), ["tall"]),
    ("sp_qr_econ", lambda m, x: tuple(m.jsp.linalg.qr(x, mode="economic")), ["tall"]),
    ("sp_svd", lambda m, x: tuple(m.jsp.linalg.svd(x)), ["wide"]),
    ("sp_eigh", lambda m, x: tuple(m.jsp.linalg.eigh(x)), ["sym"]),
    ("sp_schur", lambda m, x: tuple(m.jsp.linalg.schur(x)), ["a"]),
    ("sp_schur_c", lambda m, x: tuple(m.jsp.linalg.schur(x, output="complex")), ["a"]),
    ("sp_expm_small", lambda m, x: m.jsp.linalg.expm(x), ["small"]),
    ("sp_expm_big", lambda m, x: m.jsp.linalg.expm(x), ["big"]),
    ("sp_expm_batch", lambda m, x: m.jsp.linalg.expm(x), ["batch"]),
    ("sp_cho_solve", lambda m, x, y: m.jsp.linalg.cho_solve(m.jsp.linalg.cho_factor(x), y),
     ["spd", "b"]),
    ("sp_cho_solve_lower", lambda m, x, y: m.jsp.linalg.cho_solve(
        m.jsp.linalg.cho_factor(x, lower=True), y), ["spd", "bm"]),
    ("sp_solve_triangular", lambda m, x, y: m.jsp.linalg.solve_triangular(x, y), ["ut", "b"]),
    ("sp_solve_pos", lambda m, x, y: m.jsp.linalg.solve(x, y, assume_a="pos"), ["spd", "bm"]),
    ("lax_lu", lambda m, x: tuple(m.lax.linalg.lu(x)), ["a"]),
    ("lax_qr", lambda m, x: tuple(m.lax.linalg.qr(x, full_matrices=False)), ["tall"]),
    ("lax_svd", lambda m, x: tuple(m.lax.linalg.svd(x, full_matrices=False)), ["tall"]),
    ("lax_eig", lambda m, x: tuple(m.lax.linalg.eig(x)), ["a"]),
    ("lax_eigh", lambda m, x: tuple(m.lax.linalg.eigh(x)), ["sym"]),
    ("qr_raw", lambda m, x: tuple(m.jnp.linalg.qr(x, mode="raw")), ["tall"]),
    ("slogdet_qr", lambda m, x: tuple(m.jnp.linalg.slogdet(x, method="qr")), ["a"]),
    ("sp_sqrtm", lambda m, x: m.jsp.linalg.sqrtm(x), ["spd"]),
    ("sp_sqrtm_general", lambda m, x: m.jsp.linalg.sqrtm(x), ["a"]),
    ("sp_expm_frechet", lambda m, x, y: tuple(m.jsp.linalg.expm_frechet(x, y)),
     ["small", "big"]),
    ("sp_eigh_tridiagonal", lambda m, x: m.jsp.linalg.eigh_tridiagonal(
        x, x[:-1] * 0.5, eigvals_only=True), ["b"]),
    ("sp_hessenberg", lambda m, x: tuple(m.jsp.linalg.hessenberg(x, calc_q=True)), ["a"]),
    ("sp_hessenberg_c", lambda m, x: m.jsp.linalg.hessenberg(x), ["c"]),
    ("lax_hessenberg", lambda m, x: tuple(m.lax.linalg.hessenberg(x)), ["batch"]),
    ("lax_householder", lambda m, x: m.lax.linalg.householder_product(
        *_raw_qr(m, x)), ["tall"]),
    ("mvn_eigh", lambda m, x: m.jax.random.multivariate_normal(
        m.jax.random.PRNGKey(0), m.jnp.zeros(4), x, (3,), method="eigh"), ["spd"]),
    ("mvn_svd", lambda m, x: m.jax.random.multivariate_normal(
        m.jax.random.PRNGKey(1), m.jnp.zeros(4), x, (3,), method="svd"), ["spd"]),
    ("orthogonal", lambda m, x: m.jax.nn.initializers.orthogonal()(
        m.jax.random.PRNGKey(2), (4, 3)), ["a"]),
    ("lax_perm", lambda m, x: m.lax.linalg.lu_pivots_to_permutation(
        m.jnp.array([2, 2, 3, 3], m.jnp.int32), 5), ["a"]),
    # pivots out of range: negative ones wrap once, reads clamp, writes are dropped
    ("lax_perm_wild", lambda m, p: m.lax.linalg.lu_pivots_to_permutation(p[0], 5), ["piv_wild"]),
    ("lax_perm_wild_batch", lambda m, p: m.lax.linalg.lu_pivots_to_permutation(p, 6),
     ["piv_wild"]),
    ("lax_lu_batch", lambda m, x: tuple(m.lax.linalg.lu(x)), ["batch"]),
    ("solve_batch", lambda m, x, y: m.jnp.linalg.solve(x, y[:3, :2] + x[:, :, :2]),
     ["batch", "bm"]),
    ("sp_lu_solve_t_batch", lambda m, x, y: m.jsp.linalg.lu_solve(
        m.jsp.linalg.lu_factor(x), x[:, :, :2] - y[:3, :2], trans=1), ["batch", "bm"]),
    ("sp_lu_solve_c", lambda m, x, y: m.jsp.linalg.lu_solve(m.jsp.linalg.lu_factor(x), y,
                                                           trans=2), ["c", "c"]),
    ("sp_cholesky_skew", lambda m, x: m.jsp.linalg.cholesky(x), ["spd_skew"]),
    ("sp_cholesky_skew_lower", lambda m, x: m.jsp.linalg.cholesky(x, lower=True), ["spd_skew"]),
    ("sp_cho_factor_skew", lambda m, x: m.jsp.linalg.cho_factor(x)[0], ["spd_skew"]),
    ("sp_solve_pos_skew", lambda m, x, y: m.jsp.linalg.solve(x, y, assume_a="pos"),
     ["spd_skew", "bm"]),
    ("sp_solve_pos_skew_lower", lambda m, x, y: m.jsp.linalg.solve(x, y, assume_a="pos",
                                                                  lower=True), ["spd_skew", "bm"]),
]


def _raw_qr(m, x):
    h, taus = m.jnp.linalg.qr(x, mode="raw")
    return m.jnp.swapaxes(h, -1, -2), taus


# derivatives: (name, function, inputs), each a scalar function's gradient
GRADS = [
    ("g_det", lambda m, x: m.jax.grad(m.jnp.linalg.det)(x), ["a"]),
    ("g_slogdet", lambda m, x: m.jax.grad(lambda v: m.jnp.linalg.slogdet(v)[1])(x), ["a"]),
    ("g_inv", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.linalg.inv(v) ** 2))(x), ["a"]),
    ("g_eigh", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(
        m.jnp.linalg.eigh(v)[1][:, 0] ** 3 + m.jnp.linalg.eigh(v)[0] ** 2))(x), ["sym"]),
    ("g_svd", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.linalg.svd(
        v, full_matrices=False)[0] ** 3) + m.jnp.sum(m.jnp.linalg.svdvals(v)))(x), ["tall"]),
    ("g_qr", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.linalg.qr(v)[0] ** 3) +
                                     m.jnp.sum(m.jnp.linalg.qr(v)[1] ** 2))(x), ["tall"]),
    ("g_qr_complete", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.sin(
        m.jnp.linalg.qr(v, mode="complete")[0])))(x), ["tall"]),
    ("g_eigvals", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.linalg.eigvals(v).real))(x),
     ["a"]),
    ("g_lu", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.lax.linalg.lu(v)[0] ** 2))(x), ["a"]),
    ("g_expm", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jsp.linalg.expm(v)))(x), ["small"]),
    ("g_pinv", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.linalg.pinv(v)))(x), ["tall"]),
    ("g_cholesky", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.linalg.cholesky(v)))(x),
     ["spd"]),
    # solve's derivative reuses a's LU (JAX's custom_linear_solve rule)
    ("g_solve", lambda m, x, y: m.jax.grad(lambda u, v: m.jnp.sum(m.jnp.sin(
        m.jnp.linalg.solve(u, v))), argnums=(0, 1))(x, y), ["a", "bm"]),
    ("jvp_solve", lambda m, x, y: m.jax.jvp(m.jnp.linalg.solve, (x, y), (x.T, 2 * y))[1],
     ["a", "b"]),
    ("hess_solve", lambda m, x, y: m.jax.hessian(lambda u: m.jnp.sum(
        m.jnp.linalg.solve(u, y) ** 2))(x), ["a", "b"]),
    ("g_solve_vmap", lambda m, x, y: m.jax.vmap(m.jax.grad(lambda u: m.jnp.sum(
        m.jnp.linalg.solve(u, y[:3]) ** 3)))(x), ["batch", "b"]),
    # det through the adjugate (finite at a rank n - 1 matrix), slogdet by trace(a^-1 da)
    ("g_det_singular", lambda m, x: m.jax.grad(m.jnp.linalg.det)(
        m.jnp.concatenate([x[:1], 2 * x[:1], x[2:]])), ["a"]),
    ("g_det_batch", lambda m, x: m.jax.grad(lambda v: m.jnp.sum(m.jnp.linalg.det(
        m.jnp.concatenate([v, v], axis=-1).reshape(2, 6, 3)[:, :4, :].repeat(2, axis=-1)[
            ..., :4])))(x), ["batch"]),
    ("jvp_slogdet_c", lambda m, x: m.jax.jvp(m.jnp.linalg.slogdet, (x,), (x * 0.5 + 1,))[1],
     ["c"]),
    ("g_slogdet_qr", lambda m, x: m.jax.grad(lambda v: m.jnp.linalg.slogdet(
        v, method="qr")[1])(x), ["a"]),
    ("g_sp_solve_pos", lambda m, x, y: m.jax.grad(lambda u: m.jnp.sum(m.jsp.linalg.solve(
        u, y, assume_a="pos")))(x), ["spd", "bm"]),
]


def encode(y):
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape),
            "re": np.real(y).astype(np.float64).ravel().tolist(),
            "im": np.imag(y).astype(np.float64).ravel().tolist()}


def decode(d):
    v = np.asarray(d["re"]) + 1j * np.asarray(d["im"])
    return v.reshape(d["shape"])


def record(path):
    import types
    import jax
    import jax.numpy as jnp
    import jax.scipy as jsp
    import jax.nn.initializers  # noqa: F401
    import jax.scipy.linalg  # noqa: F401
    from jax import lax
    m = types.SimpleNamespace(jax=jax, jnp=jnp, jsp=jsp, lax=lax)
    ins = inputs()
    out = {}
    for name, fn, args in CASES + GRADS:
        res = fn(m, *[ins[a] for a in args])
        res = res if isinstance(res, tuple) else (res,)
        out[name] = [encode(r) for r in res]
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("linalg.json"))

# matrix constructors and polar (jax.scipy.linalg)
CONSTRUCTORS = [
    ("toeplitz", lambda m: m.jsp.linalg.toeplitz(m.np.array([1., 2., 3.], m.np.float32))),
    ("toeplitz_r", lambda m: m.jsp.linalg.toeplitz(m.np.array([1., 2., 3.], m.np.float32),
                                                  m.np.array([1., 5., 6., 7.], m.np.float32))),
    ("toeplitz_batch", lambda m: m.jsp.linalg.toeplitz(m.np.arange(6.).reshape(2, 3))),
    ("hankel", lambda m: m.jsp.linalg.hankel(m.np.array([1., 2., 3.], m.np.float32))),
    ("hankel_r", lambda m: m.jsp.linalg.hankel(m.np.array([1., 2., 3.], m.np.float32),
                                              m.np.array([3., 8., 9., 10.], m.np.float32))),
    ("circulant", lambda m: m.jsp.linalg.circulant(m.np.array([1., 2., 3., 4.], m.np.float32))),
    ("companion", lambda m: m.jsp.linalg.companion(m.np.array([2., -3., 1., 5.], m.np.float32))),
    ("leslie", lambda m: m.jsp.linalg.leslie(m.np.array([.1, 2., 1.5], m.np.float32),
                                            m.np.array([.2, .8], m.np.float32))),
    ("fiedler", lambda m: m.jsp.linalg.fiedler(m.np.array([1., 4., 12., 45.], m.np.float32))),
    ("block_diag", lambda m: m.jsp.linalg.block_diag(m.np.ones((2, 2), m.np.float32),
                                                    m.np.array([3., 4.], m.np.float32), 5.0)),
    ("hilbert", lambda m: m.jsp.linalg.hilbert(4)),
    ("invhilbert", lambda m: m.jsp.linalg.invhilbert(4)),
    ("invpascal", lambda m: m.jsp.linalg.invpascal(4)),
    ("invpascal_upper", lambda m: m.jsp.linalg.invpascal(3, kind="upper")),
    ("fiedler_companion", lambda m: m.jsp.linalg.fiedler_companion(
        m.np.array([2., -3., 1., 5., 0.5, 2.], m.np.float32))),
    ("fiedler_companion_small", lambda m: m.jsp.linalg.fiedler_companion(
        m.np.array([2., -3., 1.], m.np.float32))),
    ("convolution_matrix", lambda m: m.jsp.linalg.convolution_matrix(
        m.np.array([1., 2., 3.], m.np.float32), 4)),
    ("convolution_matrix_same", lambda m: m.jsp.linalg.convolution_matrix(
        m.np.array([1., 2., 3., 4.], m.np.float32), 3, mode="same")),
    ("convolution_matrix_valid", lambda m: m.jsp.linalg.convolution_matrix(
        m.np.array([1., 2., 3., 4.], m.np.float32), 2, mode="valid")),
    ("pascal", lambda m: m.jsp.linalg.pascal(4)),
    ("pascal_lower", lambda m: m.jsp.linalg.pascal(4, kind="lower")),
    ("helmert", lambda m: m.jsp.linalg.helmert(4)),
    ("helmert_full", lambda m: m.jsp.linalg.helmert(3, full=True)),
    ("hadamard", lambda m: m.jsp.linalg.hadamard(4)),
    ("dft", lambda m: m.jsp.linalg.dft(4, scale="sqrtn")),
    ("polar", lambda m: tuple(m.jsp.linalg.polar(inputs()["tall"]))),
    ("polar_left", lambda m: tuple(m.jsp.linalg.polar(inputs()["a"], side="left",
                                                       method="svd"))),
]


def record_constructors(path):
    import types
    import jax
    import jax.scipy.linalg  # noqa: F401
    m = types.SimpleNamespace(jsp=jax.scipy, np=np)
    out = {}
    for name, fn in CONSTRUCTORS:
        res = fn(m)
        res = res if isinstance(res, tuple) else (res,)
        out[name] = [encode(r) for r in res]
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__" and len(sys.argv) == 1:
    record_constructors(Path(__file__).with_name("linalg_constructors.json"))
