"""`jax.experimental.sparse.BCSR`: batched-CSR arrays (fromdense, todense, to_bcoo,
from_bcoo, `@` a dense operand) under `jit`, `vmap` and `grad`. Expected buffers,
flags and refusals are real JAX 0.10.2's (the same programs run with `import jax`)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.errors import AstjaxError

M = jnp.array([[0., 2., 0.], [1., 0., 4.], [0., 0., 0.], [5., 0., 0.]])
A = jnp.arange(24.).reshape(2, 3, 4) % 3 - 1
RNG = np.random.RandomState(1)
R = (RNG.randn(5, 6) * (RNG.rand(5, 6) < 0.4)).astype(np.float32)


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def buffers(s):
    return [np.asarray(b).tolist() for b in (s.data, s.indices, s.indptr)]


def test_fromdense_buffers_and_flags():
    S = sparse.BCSR.fromdense(M)
    assert (repr(S), S.indices_sorted, S.unique_indices) == ("BCSR(float32[4, 3], nse=4)", False, False)
    assert buffers(S) == [[2., 1., 4., 5.], [1, 0, 2, 0], [0, 1, 3, 3, 4]]
    assert S.indices.dtype == np.int32 and S.indptr.dtype == np.int32
    assert (S.n_batch, S.n_sparse, S.n_dense, S.ndim) == (0, 2, 0, 2)
    assert buffers(sparse.BCSR.fromdense(M, nse=6)) == [
        [2., 1., 4., 5., 0., 0.], [1, 0, 2, 0, 3, 3], [0, 1, 3, 3, 4]]
    close(S.todense(), M)
    close(sparse.bcsr_todense(sparse.bcsr_fromdense(M, nse=6)), M)
    B = sparse.BCSR.fromdense(A, n_batch=1)
    assert repr(B) == "BCSR(float32[2, 3, 4], nse=8, n_batch=1)"
    assert np.asarray(B.indices).tolist() == [[0, 2, 3, 1, 2, 0, 1, 3]] * 2
    assert np.asarray(B.indptr).tolist() == [[0, 3, 5, 8]] * 2
    close(B.todense(), A)
    D = sparse.BCSR.fromdense(A, n_dense=1)
    assert repr(D) == "BCSR(float32[2, 3, 4], nse=6, n_dense=1)"
    assert np.asarray(D.indices).tolist() == [0, 1, 2, 0, 1, 2]
    assert np.asarray(D.indptr).tolist() == [0, 3, 6]
    close(D.todense(), A)
    Rs = sparse.BCSR.fromdense(R)
    close(Rs.todense(), R)
    scipy_sparse = pytest.importorskip("scipy.sparse")
    close(sparse.BCSR.from_scipy_sparse(scipy_sparse.csr_matrix(R)).todense(), R)


def test_bcoo_conversions():
    C = sparse.BCSR.fromdense(M, nse=6).to_bcoo()
    assert (repr(C), C.indices_sorted, C.unique_indices) == ("BCOO(float32[4, 3], nse=6)", False, False)
    assert np.asarray(C.indices).tolist() == [[0, 1], [1, 0], [1, 2], [3, 0], [4, 3], [4, 3]]
    X = sparse.BCOO((jnp.array([1., 2., 3.]), jnp.array([[1, 2], [0, 1], [3, 0]])), shape=(4, 3))
    F = sparse.BCSR.from_bcoo(X)
    assert (repr(F), F.indices_sorted) == ("BCSR(float32[4, 3], nse=3)", False)
    assert buffers(F) == [[2., 1., 3.], [1, 2, 0], [0, 1, 2, 2, 3]]
    close(F.todense(), X.todense())
    B = sparse.BCOO.fromdense(A, n_batch=1)
    close(sparse.BCSR.from_bcoo(B).to_bcoo().todense(), A)
    with pytest.raises(NotImplementedError):
        sparse.BCSR.from_bcoo(sparse.BCOO.fromdense(A))


def test_matmul_with_dense_operands_jit_and_grad():
    S = sparse.BCSR.fromdense(M)
    close(S @ jnp.arange(3.), [2., 8., 0., 0.])
    close(S @ jnp.ones((3, 2)), [[2., 2.], [5., 5.], [0., 0.], [5., 5.]])
    close(sparse.BCSR.fromdense(A, n_batch=1) @ jnp.ones(4), [[-1., 0., 1.]] * 2)
    v = np.arange(6.).astype(np.float32)
    Rs = sparse.BCSR.fromdense(R)
    close(Rs @ v, R @ v, 1e-4)
    dn = (((1,), (0,)), ((), ()))
    close(sparse.bcsr_dot_general(Rs, v, dimension_numbers=dn), R @ v, 1e-4)
    assert astjax.jit(lambda m: sparse.BCSR.fromdense(m, nse=4))(M).indptr.tolist() == [0, 1, 3, 3, 4]

    def f(d):
        return (sparse.BCSR((d, S.indices, S.indptr), shape=S.shape) @ jnp.arange(3.) ** 2).sum()
    close(astjax.grad(f)(S.data), [1., 0., 4., 0.])   # (JAX's)
    close(astjax.jit(astjax.grad(f))(S.data), [1., 0., 4., 0.])

    def g(d):
        return jnp.sin(sparse.BCSR((d, Rs.indices, Rs.indptr), shape=Rs.shape) @ v).sum()
    grad = astjax.grad(g)(Rs.data)
    d0, eps = np.asarray(Rs.data, np.float64), 1e-3
    for i in range(0, Rs.nse, 3):
        e = np.zeros_like(d0)
        e[i] = eps
        fd = (float(g(jnp.asarray(d0 + e, jnp.float32)))
              - float(g(jnp.asarray(d0 - e, jnp.float32)))) / (2 * eps)
        close(grad[i], fd, 2e-2)


def test_vmap_over_a_bcsr():
    B = sparse.BCSR.fromdense(A, n_batch=1)
    assert astjax.vmap(lambda s: s.todense())(B).shape == (2, 3, 4)
    close(astjax.vmap(lambda s: s @ jnp.ones(4))(B), [[-1., 0., 1.]] * 2)
    made = astjax.vmap(lambda x: sparse.BCSR.fromdense(x, nse=8))(A)
    assert repr(made) == "BCSR(float32[2, 3, 4], nse=8, n_batch=1)"
    close(made.todense(), A)
    # an unbatched BCSR has no batch axis to map: JAX's ValueError (or vmap's own
    # size mismatch between its buffers, also a ValueError)
    for nse in (4, 5):
        with pytest.raises(ValueError) as e:
            astjax.vmap(lambda s: s.todense())(sparse.BCSR.fromdense(M, nse=nse))
        assert isinstance(e.value, AstjaxError)
    with pytest.raises(ValueError, match="must correspond to a batched dimension"):
        astjax.vmap(lambda s: s.todense())(sparse.BCSR.fromdense(M, nse=5))


def test_what_jax_refuses():
    S = sparse.BCSR.fromdense(M)
    for f, words in ((lambda: jnp.ones(4) @ S, "implemented for BCSR lhs and ndarray rhs"),
                     (lambda: S.T, "Transpose is not implemented."),
                     (lambda: sparse.bcsr_fromdense(A), "must have 2 sparse dimensions")):
        with pytest.raises((NotImplementedError, ValueError), match=words) as e:
            f()
        assert isinstance(e.value, AstjaxError)


def layout(s):
    return repr(s), s.indices_sorted, s.unique_indices


def test_sparsify_with_bcsr_operands():
    """JAX's BCSR rule set under `sparsify` (results and flags are JAX's); a BCSR
    argument used to raise a ValueError about BCOO buffers."""
    S, D = sparse.BCSR.fromdense(R), np.asarray(R)
    sp = sparse.sparsify
    for f, want in ((jnp.sin, np.sin(D)), (jnp.negative, -D), (lambda x: x ** 2, D ** 2),
                    (sparse.todense, D),
                    (astjax.jit(jnp.abs), np.abs(D))):   # (JAX refuses an inner jit here)
        out = sp(f)(S)
        close(sparse.todense(out), want)
    assert layout(sp(jnp.sin)(S)) == ("BCSR(float32[5, 6], nse=14)", False, False)
    assert layout(sp(lambda x: x.astype(jnp.int32))(S))[0] == "BCSR(int32[5, 6], nse=14)"
    assert not isinstance(sp(sparse.todense)(S), sparse.JAXSparse)
    close(sp(lambda x, v: x @ v)(S, jnp.arange(6.)), D @ np.arange(6.))
    both = sp(lambda x: jnp.concatenate([x, x], 1))(S)
    assert layout(both) == ("BCSR(float32[5, 12], nse=28)", False, False)
    close(both.todense(), np.concatenate([D, D], 1))
    stacked = sp(lambda x: astjax.lax.broadcast_in_dim(x, (2, 5, 6), (1, 2)))(S)
    assert layout(stacked) == ("BCSR(float32[2, 5, 6], nse=14, n_batch=1)", False, False)
    close(stacked.todense(), np.stack([D, D]))
    batched = sparse.BCSR.fromdense(np.asarray(A), n_batch=1)
    close(sp(jnp.sin)(batched).todense(), np.sin(np.asarray(A)))
    dup = sparse.BCSR((jnp.array([1., 2., 3.]), jnp.array([1, 1, 0]), jnp.array([0, 2, 2, 3])),
                      shape=(3, 3))
    close(sp(jnp.sin)(dup).todense(), [[0, np.sin(3.), 0], [0, 0, 0], [np.sin(3.), 0, 0]])
    close(sp(jnp.negative)(dup).data, [-1., -2., -3.])   # (linear: duplicates kept)
    close(dup.sum_duplicates(nse=3, remove_zeros=False).todense(), dup.todense())
    close(S[None].todense(), D[None])
    assert layout(S[:]) == ("BCSR(float32[5, 6], nse=14)", False, False)


def test_bcsr_operations_jax_refuses():
    S = sparse.BCSR.fromdense(M)
    sp = sparse.sparsify
    for f, words in ((lambda: sp(lambda x: x * 2.)(S), "sparse rule for mul is not"),
                     (lambda: sp(lambda x: x + x)(S), "sparse rule for add is not"),
                     (lambda: sp(jnp.cos)(S), "sparse rule for cos is not implemented because"),
                     (lambda: sp(lambda x: x ** 0)(S), "non-positive exponent 0"),
                     (lambda: sp(lambda x, y: x @ y)(S, sparse.BCSR.fromdense(M.T)),
                      "BCSR lhs and ndarray rhs"),
                     (lambda: S[0], "sparse rule for slice is not implemented"),
                     (lambda: S[1:], "sparse rule for slice is not implemented"),
                     (lambda: S[:, None], "requires n_sparse=2"),
                     (lambda: -S, "BCSR'>.__neg__"), (lambda: S * 2, "BCSR'>.__mul__"),
                     (lambda: S + S, "BCSR'>.__add__"), (lambda: S.sum(), "BCSR'>.sum")):
        with pytest.raises(NotImplementedError, match=words) as e:
            f()
        assert isinstance(e.value, AstjaxError)
