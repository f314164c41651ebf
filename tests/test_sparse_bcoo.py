"""`jax.experimental.sparse`'s BCOO arrays, and the core names numpyro imports beside
them (`jax.extend.core.primitives.call_p`, `jax._src.core.trace_state_clean`).
Expected values are real JAX 0.10.2's (the same programs run with `import jax`)."""
import subprocess
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.errors import AstjaxError

M = jnp.array([[0., 2., 0.], [1., 0., 4.]])
A = jnp.arange(24.).reshape(2, 3, 4) % 3 - 1


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)


def test_fromdense_todense_and_attributes():
    S = sparse.BCOO.fromdense(M)
    assert repr(S) == "BCOO(float32[2, 3], nse=3)"
    close(S.data, [2., 1., 4.])
    assert np.asarray(S.indices).tolist() == [[0, 1], [1, 0], [1, 2]]
    assert S.indices.dtype == np.int32 and S.dtype == np.float32
    assert (S.nse, S.n_batch, S.n_sparse, S.n_dense, S.ndim, S.size) == (3, 0, 2, 0, 2, 6)
    assert S.indices_sorted and S.unique_indices
    close(S.todense(), M)
    close(sparse.bcoo_todense(S), M)
    assert sparse.todense(S).shape == (2, 3) and sparse.todense(M) is M
    S.block_until_ready()


def test_fromdense_padding_batch_and_dense_layouts():
    S = sparse.BCOO.fromdense(M, nse=5)
    close(S.data, [2., 1., 4., 0., 0.])
    assert np.asarray(S.indices).tolist() == [[0, 1], [1, 0], [1, 2], [2, 3], [2, 3]]
    close(S.todense(), M)
    D = sparse.BCOO.fromdense(A, n_dense=1)
    assert repr(D) == "BCOO(float32[2, 3, 4], nse=6, n_dense=1)"
    assert np.asarray(D.indices).tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    close(D.data[1], [0.0, 1.0, -1.0, 0.0])
    close(D.todense(), A)
    B = sparse.BCOO.fromdense(A, n_batch=1)
    assert repr(B) == "BCOO(float32[2, 3, 4], nse=8, n_batch=1)"
    assert np.asarray(B.indices[0]).tolist() == [[0, 0], [0, 2], [0, 3], [1, 1], [1, 2],
                                                [2, 0], [2, 1], [2, 3]]
    close(B.data[0], [-1., 1., -1., 1., -1., 1., -1., 1.])
    close(B.todense(), A)


def test_fromdense_under_jit_needs_a_static_nse():
    S = astjax.jit(lambda x: sparse.BCOO.fromdense(x, nse=3))(M)
    assert repr(S) == "BCOO(float32[2, 3], nse=3)"
    close(S.todense(), M)
    with pytest.raises(TypeError) as e:
        astjax.jit(lambda x: sparse.BCOO.fromdense(x))(M)
    assert isinstance(e.value, AstjaxError)


def test_bcoo_is_a_pytree_through_jit():
    S = sparse.BCOO.fromdense(M)
    leaves, tree = astjax.tree_util.tree_flatten(S)
    assert len(leaves) == 2
    T = astjax.tree_util.tree_unflatten(tree, leaves)
    assert T.shape == (2, 3) and T.unique_indices
    out = astjax.jit(lambda s: s * 2.)(S)
    assert isinstance(out, sparse.BCOO)
    close(out.todense(), M * 2)


def test_matmul_with_dense_operands():
    S = sparse.BCOO.fromdense(M)
    close(S @ jnp.ones(3), [2., 5.])
    close(jnp.ones(2) @ S, [1., 2., 4.])
    close(S @ jnp.arange(6.).reshape(3, 2), [[4., 6.], [16., 21.]])
    close(S @ jnp.arange(12.).reshape(2, 3, 2),
          [[[4., 6.], [16., 21.]], [[16., 18.], [46., 51.]]])
    close(jnp.arange(6.).reshape(3, 2).T @ S.T, [[4., 16.], [6., 21.]])
    close(astjax.jit(lambda s, v: s @ v)(S, jnp.ones(3)), [2., 5.])


def test_batched_dot_general_and_dense_dimensions():
    B = sparse.BCOO.fromdense(A, n_batch=1)
    rhs = jnp.arange(8.).reshape(2, 4, 1) * jnp.ones((1, 1, 2))
    close(B @ rhs, [[[-1., -1.], [-1., -1.], [2., 2.]], [[-5., -5.], [-1., -1.], [6., 6.]]])
    dn = (((2,), (1,)), ((0,), (0,)))
    close(sparse.bcoo_dot_general(B, jnp.arange(8.).reshape(2, 4), dimension_numbers=dn),
          [[-1., -1., 2.], [-5., -1., 6.]])
    D = sparse.BCOO.fromdense(A, n_dense=1)
    close(sparse.bcoo_dot_general(D, jnp.arange(3.), dimension_numbers=(((1,), (0,)), ((), ()))),
          [[2., -1., -1., 2.], [2., -1., -1., 2.]])


def test_grad_with_respect_to_data():
    S = sparse.BCOO.fromdense(M)

    def f(d):
        return (sparse.BCOO((d, S.indices), shape=S.shape) @ jnp.array([1., -2., 3.]) ** 2).sum()
    close(astjax.grad(f)(S.data), [4., 1., 9.])
    close(astjax.jit(astjax.grad(f))(S.data), [4., 1., 9.])
    B = sparse.BCOO.fromdense(A, n_batch=1)

    def g(d):
        return (jnp.sin(sparse.BCOO((d, B.indices), shape=B.shape).todense()) * A).sum()
    c = 0.5403022766113281
    close(astjax.grad(g)(B.data), [[-c, c] * 4] * 2)

    def h(x):
        return (sparse.BCOO.fromdense(x, nse=4) @ jnp.arange(3.)).sum()
    close(astjax.grad(h)(M), [[0., 1., 0.], [0., 0., 2.]])


def test_transpose_sum_and_products():
    S = sparse.BCOO.fromdense(M)
    T = S.T
    assert repr(T) == "BCOO(float32[3, 2], nse=3)" and not T.indices_sorted
    assert np.asarray(T.indices).tolist() == [[1, 0], [0, 1], [2, 1]]
    assert S.transpose((0, 1)).indices_sorted and T.unique_indices
    assert sparse.bcoo_transpose(S, permutation=(1, 0)).unique_indices   # (JAX's flags)
    B = sparse.BCOO.fromdense(A, n_batch=1)
    assert np.asarray(B.transpose((0, 2, 1)).indices[1]).tolist() == [
        [0, 0], [2, 0], [3, 0], [1, 1], [2, 1], [0, 2], [1, 2], [3, 2]]
    with pytest.raises(NotImplementedError, match="cannot permute batch axes"):
        sparse.bcoo_transpose(B, permutation=(1, 0, 2))   # (JAX's class)
    total = S.sum()
    assert not isinstance(total, sparse.BCOO)
    close(total, 7.)
    s0 = S.sum(0)
    assert repr(s0) == "BCOO(float32[3], nse=3)"
    close(s0.data, [2., 1., 4.])
    assert np.asarray(s0.indices).tolist() == [[1], [0], [2]]
    b0 = B.sum(0)
    assert repr(b0) == "BCOO(float32[3, 4], nse=16)"
    close(b0.todense(), [[-2., 0., 2., -2.], [0., 2., -2., 0.], [2., -2., 0., 2.]])
    assert repr(B.sum((0, 2))) == "BCOO(float32[3], nse=16)"
    d2 = sparse.BCOO.fromdense(A, n_dense=1).sum(2)
    assert repr(d2) == "BCOO(float32[2, 3], nse=6)"
    scaled = S * 2.
    assert isinstance(scaled, sparse.BCOO)
    close(scaled.data, [4., 2., 8.])
    close((S * M).data, [4., 1., 16.])
    close((M * S).todense(), M * M)
    close((S * jnp.array([1., 10., 100.])).data, [20., 1., 400.])
    close((-S).todense(), -M)


def test_eye_empty_reshape_astype_and_scipy():
    assert np.asarray(sparse.eye(3).indices).tolist() == [[0, 0], [1, 1], [2, 2]]
    assert np.asarray(sparse.eye(3, 4, k=1).indices).tolist() == [[0, 1], [1, 2], [2, 3]]
    assert np.asarray(sparse.eye(3, k=-1).indices).tolist() == [[1, 0], [2, 1]]
    close(sparse.eye(3, 4, k=1).todense(), np.eye(3, 4, 1))
    e = sparse.empty((2, 3), nse=2)
    assert repr(e) == "BCOO(float32[2, 3], nse=2)"
    assert np.asarray(e.indices).tolist() == [[2, 3], [2, 3]]
    close(e.todense(), np.zeros((2, 3)))
    S = sparse.BCOO.fromdense(M)
    R = S.reshape(3, 2)
    assert np.asarray(R.indices).tolist() == [[0, 1], [1, 1], [2, 1]]
    close(R.todense(), M.reshape(3, 2))
    assert repr(S.astype(jnp.int32)) == "BCOO(int32[2, 3], nse=3)"
    scipy_sparse = pytest.importorskip("scipy.sparse")
    F = sparse.BCOO.from_scipy_sparse(scipy_sparse.csr_matrix(np.asarray(M)))
    assert F.shape == (2, 3) and not F.indices_sorted
    close(F.todense(), M)


def test_sum_duplicates_and_sort_indices():
    dup = sparse.BCOO((jnp.array([1., 2., 3., 0., 5.]),
                       jnp.array([[1, 2], [0, 1], [1, 2], [0, 0], [2, 3]])), shape=(2, 3))
    sd = dup.sum_duplicates()
    close(sd.data, [2., 4.])
    assert np.asarray(sd.indices).tolist() == [[0, 1], [1, 2]]
    sd4 = dup.sum_duplicates(nse=4, remove_zeros=False)
    close(sd4.data, [0., 2., 4., 5.])
    assert np.asarray(sd4.indices).tolist() == [[0, 0], [0, 1], [1, 2], [2, 3]]
    jitted = astjax.jit(lambda s: s.sum_duplicates(nse=3))(dup)
    close(jitted.todense(), dup.todense())
    si = dup.sort_indices()
    close(si.data, [0., 2., 1., 3., 5.])
    assert np.asarray(si.indices).tolist() == [[0, 0], [0, 1], [1, 2], [1, 2], [2, 3]]
    assert si.indices_sorted


def test_invalid_buffers_raise_jax_value_error():
    with pytest.raises(ValueError) as e:
        sparse.BCOO((jnp.ones(3), jnp.zeros((4, 2), jnp.int32)), shape=(2, 3))
    assert isinstance(e.value, AstjaxError)


def test_buffers_changed_through_the_pytree_are_a_located_error_not_a_wrong_value():
    B = sparse.BCOO.fromdense(A, n_batch=1)
    broken = astjax.tree_util.tree_map(lambda x: x[..., None], B)
    for f in (lambda s: s.todense(), lambda s: s @ jnp.ones(4), lambda s: s.sum(0)):
        with pytest.raises(ValueError, match="BCOO buffers do not match its shape") as e:
            f(broken)
        assert isinstance(e.value, AstjaxError)


def test_unbuilt_names_are_absent():
    for name in ("bcoo_conv_general_dilated", "linalg", "jacfwd", "value_and_grad"):
        assert not hasattr(sparse, name)


def test_call_p_is_a_primitive_with_the_closed_call_rules():
    from astjax.extend.core import primitives
    call_p = primitives.call_p
    jaxpr = astjax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.).jaxpr

    def f(x):
        return call_p.bind(x, call_jaxpr=jaxpr)[0]
    close(f(1.), np.sin(1.) * 2)
    close(astjax.jit(f)(1.), np.sin(1.) * 2)
    close(astjax.grad(f)(1.), np.cos(1.) * 2)
    close(astjax.vmap(f)(jnp.arange(3.)), np.sin(np.arange(3.)) * 2)


def test_numpyro_imports_resolve_through_the_alias():
    code = ("import astjax; astjax.install_as_jax()\n"
            "from jax.extend.core.primitives import call_p, closed_call_p, jit_p\n"
            "from jax._src.core import trace_state_clean\n"
            "from jax.experimental.sparse import BCOO\n"
            "import jax\n"
            "assert trace_state_clean() and BCOO.__module__.startswith('astjax')\n"
            "assert jax.jit(lambda x: x * trace_state_clean())(2.) == 0.\n"
            "print('ok', call_p.name)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.stdout.strip() == "ok call", out.stderr


def test_concatenate_along_batch_and_sparse_axes():
    N = jnp.array([[3., 0., 0.], [0., 0., 5.]])
    a, b = sparse.BCOO.fromdense(M), sparse.BCOO.fromdense(N, nse=3)
    rows = sparse.bcoo_concatenate([a, b], dimension=0)
    assert (repr(rows), rows.indices_sorted, rows.unique_indices) == (
        "BCOO(float32[4, 3], nse=6)", False, False)
    assert np.asarray(rows.indices).tolist() == [[0, 1], [1, 0], [1, 2], [2, 0], [3, 2], [4, 3]]
    close(rows.data, [2., 1., 4., 3., 5., 0.])
    close(rows.todense(), np.concatenate([M, N], 0))
    cols = sparse.bcoo_concatenate([a, b], dimension=1)
    assert repr(cols) == "BCOO(float32[2, 6], nse=6)"
    assert np.asarray(cols.indices).tolist() == [[0, 1], [1, 0], [1, 2], [0, 3], [1, 5], [2, 6]]
    close(cols.todense(), np.concatenate([M, N], 1))
    B1 = sparse.BCOO.fromdense(A, n_batch=1)
    B2 = sparse.BCOO.fromdense(A[:1] * 2, n_batch=1, nse=10)   # B1 padded to nse=10
    batch = sparse.bcoo_concatenate([B1, B2], dimension=0)
    assert repr(batch) == "BCOO(float32[3, 3, 4], nse=10, n_batch=1)"
    close(batch.todense(), np.concatenate([A, A[:1] * 2], 0))
    g = astjax.grad(lambda d: (sparse.bcoo_concatenate(
        [sparse.BCOO((d, a.indices), shape=a.shape), b], dimension=1) @ jnp.arange(6.)).sum())
    close(g(a.data), [1., 0., 2.])   # (JAX's)
    close(astjax.jit(g)(a.data), [1., 0., 2.])
    for ops, d, err in (([a, a], 2, TypeError),
                        ([sparse.BCOO.fromdense(A, n_dense=1)] * 2, 2, NotImplementedError),
                        ([a, M], 0, ValueError)):
        with pytest.raises(err) as e:
            sparse.bcoo_concatenate(ops, dimension=d)
        assert isinstance(e.value, AstjaxError)
