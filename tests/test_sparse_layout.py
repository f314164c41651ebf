"""`jax.experimental.sparse`'s structural BCOO operations: `bcoo_slice`,
`bcoo_dynamic_slice`, `bcoo_squeeze`, `bcoo_broadcast_in_dim`, `bcoo_rev`,
`bcoo_update_layout`. Each case's result (layout, flags, stored buffers) is compared
with real JAX 0.10.2's through its digest (`ORACLE`, printed by
`cd tests; .jaxenv/bin/python test_sparse_oracle.py test_sparse_layout jax`), and its
dense value with NumPy's."""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.errors import AstjaxError
from test_sparse_oracle import close, digests, rand

A = rand(np.random.RandomState(0), (3, 4, 5))
LAYOUTS = [(0, 0), (1, 0), (0, 1), (1, 1)]


def cases(jax, sparse, jnp):
    """name -> thunk: each kind on two layouts of `A` (one with batch dimensions, one
    with dense ones: [0,0] and [1,1] or [1,0] and [0,1]), each `update_layout` target
    from at least one (a subset: every case compiles its own programs)."""
    out = {}
    for i, (nb, nd) in enumerate(LAYOUTS):
        S = sparse.BCOO.fromdense(A, n_batch=nb, n_dense=nd)
        t = f"[{nb},{nd}]"
        for k, (name, f) in enumerate({
            "slice": lambda S=S: sparse.bcoo_slice(S, start_indices=(1, 1, 0),
                                                   limit_indices=(3, 4, 4)),
            "slice_stride": lambda S=S: sparse.bcoo_slice(
                S, start_indices=(0, 0, 1), limit_indices=(3, 4, 5), strides=(2, 3, 2)),
            "dslice": lambda S=S: sparse.bcoo_dynamic_slice(S, (1, -3, 2), (2, 2, 3)),
            "dslice_jit": lambda S=S: jax.jit(lambda s, i: sparse.bcoo_dynamic_slice(
                s, (i, 1, i), (1, 3, 2)))(S, 5),
            "squeeze": lambda S=S: sparse.bcoo_squeeze(sparse.bcoo_slice(
                S, start_indices=(1, 0, 0), limit_indices=(2, 4, 5)), dimensions=(0,)),
            "bid": lambda S=S: sparse.bcoo_broadcast_in_dim(
                S, shape=(2, 3, 4, 5), broadcast_dimensions=(1, 2, 3)),
            "bid_sparse": lambda S=S: sparse.bcoo_broadcast_in_dim(
                S, shape=(3, 1, 4, 5), broadcast_dimensions=(0, 2, 3)),
            "bid_last": lambda S=S: sparse.bcoo_broadcast_in_dim(
                S, shape=(3, 4, 5, 1), broadcast_dimensions=(0, 1, 2)),
            "rev": lambda S=S: sparse.bcoo_rev(S, (0, 1)),
            "rev_last": lambda S=S: sparse.bcoo_rev(S, (2,)),
            "update_error": lambda S=S: sparse.bcoo_update_layout(S, n_batch=2),
        }.items()):
            if k % 2 == (nb != nd):
                out[t + name] = f
        targets = LAYOUTS + [(2, 0), (0, 2), (2, 1), (1, 2), (3, 0), (0, 3)]
        for nb2, nd2 in targets[i % 3::3]:
            out[t + f"update{nb2}{nd2}"] = lambda S=S, nb2=nb2, nd2=nd2: sparse.bcoo_update_layout(
                S, n_batch=nb2, n_dense=nd2, on_inefficient=None)
    return out


ORACLE = {
    '[0,0]slice': 'f4b9bfafb7b6',
    '[0,0]dslice': '0e056c6c8fbd',
    '[0,0]squeeze': '90fa30fa7cae',
    '[0,0]bid_sparse': 'f75b418aac42',
    '[0,0]rev': '76f45204ad39',
    '[0,0]update_error': 'ValueError',
    '[0,0]update00': '19ec50353cf8',
    '[0,0]update11': 'c2cf3a9716f5',
    '[0,0]update21': '958873f93912',
    '[0,0]update03': 'c7d4b6337db7',
    '[1,0]slice_stride': '8eb7fb21d3b8',
    '[1,0]dslice_jit': 'f068cbe4ced2',
    '[1,0]bid': '0421007b6b54',
    '[1,0]bid_last': 'dc1f962d5712',
    '[1,0]rev_last': '54ff60a3b0b9',
    '[1,0]update10': '2b4c22893be6',
    '[1,0]update20': 'e2d41c8910cc',
    '[1,0]update12': '7ffdd0f4042b',
    '[0,1]slice_stride': '5397e38cb65e',
    '[0,1]dslice_jit': '6232c70d58b5',
    '[0,1]bid': 'ed03702c9a0d',
    '[0,1]bid_last': 'b2fea1a27f56',
    '[0,1]rev_last': '12849f000354',
    '[0,1]update01': '43f187375ecd',
    '[0,1]update02': 'a762eacf2b90',
    '[0,1]update30': '5d518883fda3',
    '[1,1]slice': 'b33e5fff2818',
    '[1,1]dslice': '376a6e74fb90',
    '[1,1]squeeze': '89a0f2919562',
    '[1,1]bid_sparse': '9923ec80b4a4',
    '[1,1]rev': 'f90980ac4169',
    '[1,1]update_error': 'ValueError',
    '[1,1]update00': '52205f817887',
    '[1,1]update11': '51f1104ec200',
    '[1,1]update21': '6cf051026d14',
    '[1,1]update03': 'cc0b056d9b87',
}


def test_results_are_jax_s():
    assert digests(cases, astjax, sparse, jnp) == ORACLE


@pytest.mark.parametrize("nb,nd", LAYOUTS)
def test_dense_values_are_numpy_s(nb, nd):
    S = sparse.BCOO.fromdense(A, n_batch=nb, n_dense=nd)
    close(sparse.bcoo_slice(S, start_indices=(0, 1, 1), limit_indices=(3, 4, 5),
                            strides=(2, 2, 3)).todense(), A[0:3:2, 1:4:2, 1:5:3])
    close(sparse.bcoo_dynamic_slice(S, (2, -1, 4), (1, 2, 3)).todense(), A[2:3, 2:4, 2:5])
    close(sparse.bcoo_rev(S, (0, 1, 2)).todense(), A[::-1, ::-1, ::-1])
    close(sparse.bcoo_squeeze(sparse.bcoo_broadcast_in_dim(
        S, shape=(3, 1, 4, 5), broadcast_dimensions=(0, 2, 3)), dimensions=(1,)).todense(), A)
    for nb2 in range(4):
        for nd2 in range(4 - nb2):
            T = sparse.bcoo_update_layout(S, n_batch=nb2, n_dense=nd2, on_inefficient=None)
            assert (T.n_batch, T.n_dense) == (nb2, nd2)
            close(T.todense(), A)


def test_update_layout_efficiency_errors_and_warnings():
    S = sparse.BCOO.fromdense(A)
    with pytest.raises(sparse.SparseEfficiencyError) as e:
        sparse.bcoo_update_layout(S, n_dense=1)
    assert isinstance(e.value, ValueError) and isinstance(e.value, AstjaxError)
    assert "increasing n_dense from 0 to 1" in str(e.value)
    with pytest.warns(sparse.SparseEfficiencyWarning):
        sparse.bcoo_update_layout(S, n_batch=1, on_inefficient="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sparse.bcoo_update_layout(S, n_batch=1, on_inefficient=None)
    # size-1 dimensions become batch / dense dimensions without an error
    one = sparse.BCOO.fromdense(A[:1, :, :1])
    assert sparse.bcoo_update_layout(one, n_batch=1, n_dense=1).n_dense == 1
    for kw in ({"n_batch": -1}, {"n_dense": -1}, {"n_batch": 2, "n_dense": 2},
               {"n_batch": 1, "on_inefficient": "loud"}):
        with pytest.raises(ValueError):
            sparse.bcoo_update_layout(S, **kw)


def test_errors_are_jax_s():
    S = sparse.BCOO.fromdense(A, n_batch=1)
    with pytest.raises(ValueError, match="invalid indices"):
        sparse.bcoo_slice(S, start_indices=(0, 0, 0), limit_indices=(4, 4, 5))
    with pytest.raises(ValueError, match="positive"):
        sparse.bcoo_slice(S, start_indices=(0, 0, 0), limit_indices=(3, 4, 5), strides=(1, 0, 1))
    with pytest.raises(TypeError):
        sparse.bcoo_slice(A, start_indices=(0, 0, 0), limit_indices=(3, 4, 5))
    with pytest.raises(TypeError):
        sparse.bcoo_dynamic_slice(S, (0, 0, 0), (4, 1, 1))
    with pytest.raises(ValueError, match="size not equal to one"):
        sparse.bcoo_squeeze(S, dimensions=(0,))
    with pytest.raises(ValueError, match="mix batch and sparse"):
        sparse.bcoo_broadcast_in_dim(S, shape=(4, 3, 5), broadcast_dimensions=(1, 0, 2))
    with pytest.raises(NotImplementedError, match="lengths != 1"):
        sparse.bcoo_broadcast_in_dim(sparse.BCOO.fromdense(A), shape=(3, 2, 4, 5),
                                     broadcast_dimensions=(0, 2, 3))


def test_grad_through_data_and_vmap():
    S = sparse.BCOO.fromdense(A, n_batch=1)
    w = np.random.RandomState(1).rand(2, 2, 3).astype(np.float32)

    def f(data, i):
        T = sparse.bcoo_dynamic_slice(sparse.BCOO((data, S.indices), shape=S.shape),
                                      (i, 1, 2), (2, 2, 3))
        return (T.todense() * w).sum()
    g = astjax.grad(f)(S.data, 1)
    eps = 1e-2
    d = np.asarray(S.data)
    for k in [(1, 0), (2, 3), (2, 5)]:
        e = np.zeros_like(d)
        e[k] = eps
        fd = (f(d + e, 1) - f(d - e, 1)) / (2 * eps)
        np.testing.assert_allclose(g[k], fd, rtol=1e-3)
    rows = astjax.vmap(lambda s: sparse.bcoo_slice(s, start_indices=(1, 0),
                                                   limit_indices=(3, 5)).todense())(S)
    close(rows, A[:, 1:3, :])
