"""`jax.experimental.sparse.sparsify`: a function run with `BCOO` arguments, each
operation on a sparse value dispatched to its sparse rule. Expected layouts, flags and
refusals are real JAX 0.10.2's (the same programs run with `import jax`)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.compat.experimental.sparse import sparsify
from astjax.errors import AstjaxError

D = np.arange(12.).reshape(3, 4) % 5
X = sparse.BCOO.fromdense(D)
DUP = sparse.BCOO((jnp.array([1., 2., 3.]), jnp.array([[0, 1], [0, 1], [2, 3]])), shape=(3, 4))


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def layout(r):
    return repr(r), r.indices_sorted, r.unique_indices


def test_jax_docstring_example():
    M = sparse.BCOO.fromdense(jnp.arange(12).reshape(3, 4))
    out = sparsify(lambda M, v: 2 * M.T @ v)(M, jnp.array([3, 4, 2]))
    assert not isinstance(out, sparse.BCOO) and out.dtype == jnp.int32
    assert np.asarray(out).tolist() == [64, 82, 100, 118]


@pytest.mark.parametrize("f, want, flags", [
    (lambda M: jnp.sin(M) * 2., np.sin(D) * 2, ("BCOO(float32[3, 4], nse=9)", True, True)),
    (lambda M: M.sum(0), D.sum(0), ("BCOO(float32[4], nse=9)", False, False)),
    (lambda M: M + M, 2 * D, ("BCOO(float32[3, 4], nse=9)", True, True)),
    (lambda M: M * M, D * D, ("BCOO(float32[3, 4], nse=9)", True, True)),
    (lambda M: M.T, D.T, ("BCOO(float32[4, 3], nse=9)", False, True)),
    (lambda M: -M.T * jnp.arange(3.), -D.T * np.arange(3.),
     ("BCOO(float32[4, 3], nse=9)", False, True)),
    (lambda M: jnp.sqrt(jnp.abs(M)) / 2., np.sqrt(D) / 2, ("BCOO(float32[3, 4], nse=9)", True, True)),
    (lambda M: M ** 2, D ** 2, ("BCOO(float32[3, 4], nse=9)", True, True)),
    (lambda M: M + M.T.T, 2 * D, ("BCOO(float32[3, 4], nse=18)", False, False)),
])
def test_sparse_results_match_jax_layouts(f, want, flags):
    r = sparsify(f)(X)
    assert layout(r) == flags
    close(r.todense(), want)


def test_dense_results_and_separate_arguments():
    total = sparsify(lambda M: M.sum())(X)
    assert not isinstance(total, sparse.BCOO)
    close(total, 21.)
    close(sparsify(lambda M: M + jnp.ones((3, 4)))(X), D + 1)
    # one array passed twice is two arguments with their own indices, as in JAX
    r = sparsify(lambda M, N: M - N)(X, X)
    assert layout(r) == ("BCOO(float32[3, 4], nse=18)", False, False)
    close(r.todense(), np.zeros((3, 4)))


def test_duplicates_are_summed_before_a_nonlinear_op_only():
    r = sparsify(jnp.sin)(DUP)
    assert layout(r) == ("BCOO(float32[3, 4], nse=3)", True, True)
    close(r.data, [np.sin(3.), np.sin(3.), 0.])
    assert np.asarray(r.indices).tolist() == [[0, 1], [2, 3], [3, 4]]
    n = sparsify(jnp.negative)(DUP)
    assert layout(n) == ("BCOO(float32[3, 4], nse=3)", False, False)
    close(n.data, [-1., -2., -3.])


def test_jit_and_grad_through_sparsify():
    close(astjax.jit(sparsify(lambda M, v: jnp.abs(M) @ v))(X, jnp.ones(4)), D.sum(1))

    def f(d):
        M = sparse.BCOO((d, X.indices), shape=X.shape)
        return sparsify(lambda M: (jnp.tanh(M) @ jnp.arange(4.)).sum())(M)
    g = astjax.grad(f)(X.data)
    close(g[:3], [0.41997433, 0.14130163, 0.0295983])   # (JAX's)
    cols = np.asarray(X.indices[:, 1])
    close(g, (1 - np.tanh(np.asarray(X.data)) ** 2) * cols)
    eps, d0 = 1e-3, np.asarray(X.data, np.float64)
    for i in (0, 4, 8):
        e = np.zeros_like(d0)
        e[i] = eps
        fd = (float(f(jnp.asarray(d0 + e, jnp.float32)))
              - float(f(jnp.asarray(d0 - e, jnp.float32)))) / (2 * eps)
        close(g[i], fd, 2e-2)


@pytest.mark.parametrize("f, words", [
    (jnp.cos, "sparse rule for cos is not implemented because it would result in dense"),
    (lambda M: M + 1., "Addition between a sparse array X and a dense array Y is not"),
    (lambda M: M - jnp.ones((3, 4)), "Subtraction between sparse and dense array."),
    (lambda M: 1. / M, "Division by a sparse array is not implemented"),
    (lambda M: M ** 0, "sparse rule for integer_pow with non-positive exponent 0"),
    (lambda M: M > 0, "sparse rule for gt is not implemented because"),
])
def test_what_jax_refuses_raises_not_implemented_error(f, words):
    with pytest.raises(NotImplementedError, match=words) as e:
        sparsify(f)(X)
    assert isinstance(e.value, AstjaxError)


def test_todense_inside_sparsify_gives_a_dense_array():
    """`sparse.todense(x)` inside the function densifies (JAX's todense_p rule): it used
    to return the BCOO argument itself, the identity on its dense stand-in."""
    for f in (lambda M: sparse.todense(M), lambda M: sparse.todense(M) * 2.,
              lambda M: sparse.todense(jnp.sin(M)),
              astjax.jit(lambda M: sparse.todense(M)),
              lambda M: astjax.lax.cond(True, sparse.todense, sparse.todense, M)):
        out = sparsify(f)(X)
        assert not isinstance(out, sparse.JAXSparse)
        assert out.shape == (3, 4)
    close(sparsify(lambda M: sparse.todense(M) * 2.)(X), 2 * D)
    close(sparsify(lambda M: sparse.todense(jnp.sin(M)))(X), np.sin(D))
    close(sparsify(lambda M, v: sparse.todense(v) + M)(X, jnp.ones((3, 4))), D + 1)
    close(sparsify(lambda M: sparse.todense(M))(DUP), DUP.todense())
    batched = sparse.BCOO.fromdense(np.stack([D, 2 * D]), n_batch=1)
    close(sparsify(sparse.todense)(batched), np.stack([D, 2 * D]))
    g = astjax.grad(lambda d: sparsify(lambda M: (sparse.todense(M) ** 2).sum())(
        sparse.BCOO((d, X.indices), shape=X.shape)))(X.data)
    close(g, 2 * np.asarray(X.data))


def test_todense_of_dense_values_is_the_identity():
    x = jnp.arange(6.).reshape(2, 3)
    close(astjax.jit(sparse.todense)(x), x)
    close(astjax.vmap(sparse.todense)(x), x)
    close(astjax.grad(lambda v: (sparse.todense(v) * v).sum())(x), 2 * x)
    pair = (x, x)
    assert sparse.todense(pair) is pair   # (JAX's impl: a pytree passes through)
    with pytest.raises(AttributeError, match="sparse.todense of a staged tuple") as e:
        sparsify(lambda M: sparse.todense((M, M)))(X)   # (JAX: an AttributeError)
    assert isinstance(e.value, AstjaxError)


def test_bcoo_todense_and_method_on_a_stand_in_raise_attribute_error():
    """JAX stages `f` on dense tracers: `bcoo_todense(x)` and `x.todense()` fail there."""
    for f in (sparse.bcoo_todense, lambda M: M.todense()):
        with pytest.raises(AttributeError):
            sparsify(f)(X)


def test_a_dense_axes_transpose_keeps_the_indices_link():
    """JAX's transpose rule keeps the indices' reference when only dense axes move, so
    `+` / `*` with the original add / multiply the data (nse 6, not 12 / 36)."""
    A = np.arange(24.).reshape(2, 3, 2, 2) % 3
    S = sparse.BCOO.fromdense(A, n_dense=2)
    p = (0, 1, 3, 2)
    for f, want in ((lambda x: x.transpose(p) + x.transpose(p), 2 * A.transpose(p)),
                    (lambda x: x.transpose(p) + x, A.transpose(p) + A),
                    (lambda x: x.transpose(p) * x, A.transpose(p) * A)):
        out = sparsify(f)(S)
        assert out.nse == 6
        close(out.todense(), want)
    assert sparsify(lambda x: x.T + x.T)(sparse.BCOO.fromdense(np.eye(3))).nse == 6
