"""`BCOO`'s operators and methods, derived from `sparsify` as JAX's are (`+`, `-`, `*`,
`/`, `@`, `**`, unary `-` / `+` / `abs`, indexing, iteration, `.sum`, `.reshape`,
`.astype`, `.T`, comparisons), and the sparse rules behind them (`slice`,
`dynamic_slice`, `squeeze`, `broadcast_in_dim`, `reshape`, `concatenate`, `rev`, a
product of two sparse arrays). Each case's result (layout, flags, stored buffers, or
the error class) is compared with real JAX 0.10.2's through its digest (`ORACLE`,
printed by `cd tests; .jaxenv/bin/python test_sparse_oracle.py test_sparse_methods jax`)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.errors import AstjaxError
from test_sparse_oracle import close, digests, rand

RNG = np.random.RandomState(0)
X = rand(RNG, (3, 4, 5))
Y = rand(RNG, (3, 4, 5))
M = rand(RNG, (4, 5))
N = rand(RNG, (5, 6))


def cases(jax, sparse, jnp):
    """name -> thunk."""
    fd = sparse.BCOO.fromdense
    S, T, Sb, Sd, SM, SN = fd(X), fd(Y), fd(X, n_batch=1), fd(X, n_dense=1), fd(M), fd(N)
    sp = sparse.sparsify
    c = {
        "add": lambda: S + T, "add_same": lambda: S + S, "add_dense": lambda: S + Y,
        "radd_dense": lambda: Y + S, "add_scalar": lambda: S + 1.0,
        "add_bcast_dense": lambda: S + Y[0], "sub": lambda: S - T,
        "sub_dense": lambda: S - Y, "rsub": lambda: 1.0 - S,
        "mul": lambda: S * T, "mul_same": lambda: S * S, "mul_scalar": lambda: S * 2.0,
        "rmul_scalar": lambda: 3 * S, "mul_dense": lambda: S * Y,
        "mul_bcast": lambda: S * Y[0, 0], "mul_batched": lambda: Sb * fd(Y, n_batch=1),
        "div": lambda: S / 2.0, "rdiv": lambda: 2.0 / S, "div_sparse": lambda: S / T,
        "neg": lambda: -S, "pos": lambda: +S, "abs": lambda: abs(-Sb),
        "pow": lambda: S ** 2, "pow0": lambda: S ** 0, "rpow": lambda: 2 ** S,
        "matmul_dense": lambda: SM @ N, "rmatmul_dense": lambda: N.T @ SM.T,
        "matmul_sparse": lambda: SM @ SN, "matmul_vec": lambda: SM @ N[:, 0],
        "T": lambda: S.T, "Tb": lambda: Sb.T, "transpose": lambda: S.transpose((1, 0, 2)),
        "sum": lambda: S.sum(), "sum0": lambda: S.sum(0), "sum12": lambda: Sb.sum((1, 2)),
        "sumd": lambda: Sd.sum(2), "sum_keep": lambda: S.sum(1, keepdims=True),
        "reshape": lambda: S.reshape(12, 5), "reshape_m1": lambda: S.reshape(-1),
        "reshape_b": lambda: Sb.reshape(3, 20), "reshape_d": lambda: Sd.reshape(12, 5),
        "reshape_mix": lambda: Sb.reshape(12, 5),
        "astype": lambda: S.astype(np.int32), "astype_b": lambda: Sb.astype(np.float16),
        "get0": lambda: S[0], "get_last": lambda: S[-1], "get_slice": lambda: S[1:3],
        "get_col": lambda: S[:, 1], "get_ell": lambda: S[..., 2:4],
        "get_step": lambda: S[::2, 1::2], "get_none": lambda: S[None],
        "get_none_mid": lambda: S[:, None], "get_two": lambda: S[1, 2],
        "get_b0": lambda: Sb[1], "get_b_col": lambda: Sb[:, 2], "get_d": lambda: Sd[0, :, 1],
        "get_scalar": lambda: S[1, 2, 3], "get_empty": lambda: S[1:1],
        "get_array": lambda: S[jnp.array([0, 2])],
        "get_array_mixed": lambda: S[:, jnp.array([[0, 3]]), 1],
        "get_array_neg_b": lambda: Sb[jnp.array([-1, 0, 1])],
        "gather_fill": lambda: sp(lambda a: a.at[jnp.array([0, 5])].get(mode="fill"))(S),
        "get_dynamic": lambda: jax.jit(lambda s, i: s[i])(S, 1),
        "get_dynamic_b": lambda: jax.jit(lambda s, i: s[i, 1:3])(Sb, -1),
        "iter": lambda: list(SM), "gt": lambda: S > 0, "eq": lambda: S == S,
        "concatenate": lambda: sp(lambda a, b: jnp.concatenate([a, b], 1))(S, T),
        "concatenate_b": lambda: sp(lambda a, b: jnp.concatenate([a, b]))(Sb, fd(Y, n_batch=1)),
        "concat_dense": lambda: sp(lambda a, b: jnp.concatenate([a, b]))(S, Y),
        "stack": lambda: sp(lambda a, b: jnp.stack([a, b]))(S, T),
        "flip": lambda: sp(lambda a: jnp.flip(a, (0, 2)))(Sb),
        "expand": lambda: sp(lambda a: jnp.expand_dims(a, 3))(S),
        "squeeze": lambda: sp(lambda a: a[:1].squeeze(0))(S),
        "jit_mul": lambda: jax.jit(lambda s: s * 2.0)(Sb),
        "jit_add": lambda: jax.jit(lambda s, t: s + t)(S, T),
    }
    return c


ORACLE = {
    'add': 'd85632978aa6',
    'add_same': '70778b2d8f99',
    'add_dense': 'fbe7f8ee0f03',
    'radd_dense': '88b43cf1e092',
    'add_scalar': 'NotImplementedError',
    'add_bcast_dense': 'NotImplementedError',
    'sub': 'ad315b8a8a0d',
    'sub_dense': 'NotImplementedError',
    'rsub': 'NotImplementedError',
    'mul': '458fd08138c3',
    'mul_same': '37070a32da13',
    'mul_scalar': '3936cd5f167c',
    'rmul_scalar': '6efeaa221cf3',
    'mul_dense': '1323486c0f62',
    'mul_bcast': '4f124ed697f7',
    'mul_batched': 'b51f35efcd4d',
    'div': '1eeb7b52d751',
    'rdiv': 'NotImplementedError',
    'div_sparse': 'NotImplementedError',
    'neg': '7ec76beb2c91',
    'pos': '19ec50353cf8',
    'abs': '2b4c22893be6',
    'pow': '0a5392d15c69',
    'pow0': 'NotImplementedError',
    'rpow': 'NotImplementedError',
    'matmul_dense': '897e233c0094',
    'rmatmul_dense': '78c0c5a63aba',
    'matmul_sparse': 'd4472fb043e8',
    'matmul_vec': '25bd56b0b455',
    'T': 'fa570af7dd12',
    'Tb': 'NotImplementedError',
    'transpose': '1044d00de04a',
    'sum': 'a9d11eca1b04',
    'sum0': '370f64c870a5',
    'sum12': '99c271993fb4',
    'sumd': '8dee9d42f122',
    'sum_keep': 'bc64f61ffdef',
    'reshape': '291d88ee92cf',
    'reshape_m1': '360211a04c8c',
    'reshape_b': '8f138cc77239',
    'reshape_d': 'c8dbf4171a35',
    'reshape_mix': 'ValueError',
    'astype': 'ed4e3d374eb7',
    'astype_b': 'bbf10f79fda5',
    'get0': '647f6cea14e3',
    'get_last': '5e6ffea9e549',
    'get_slice': '3c576dcc02e8',
    'get_col': 'f3f1b4eaa8aa',
    'get_ell': '29db202a6c4d',
    'get_step': '417b8c561747',
    'get_none': 'e8b69e08e3d6',
    'get_none_mid': 'f75b418aac42',
    'get_two': 'b09a34608c1a',
    'get_b0': '2f95f5756c83',
    'get_b_col': '7cc8a6066eea',
    'get_d': '049312f3dda8',
    'get_scalar': 'dc4179f0c324',
    'get_empty': '4c3492a3e9cb',
    'get_array': '3e383ec670a5',
    'get_array_mixed': '8a27f3e19976',
    'get_array_neg_b': '4c9bdcb639f8',
    'gather_fill': 'NotImplementedError',
    'get_dynamic': '90fa30fa7cae',
    'get_dynamic_b': '7025edfdb0ef',
    'iter': 'a74f44e2f6c4',
    'gt': 'NotImplementedError',
    'eq': 'NotImplementedError',
    'concatenate': 'a0f24600a821',
    'concatenate_b': '78da24cebd45',
    'concat_dense': 'ValueError',
    'stack': 'ba3ad4d66231',
    'flip': 'd2d1e5dce826',
    'expand': '5ed04471c8ac',
    'squeeze': '647f6cea14e3',
    'jit_mul': 'af0c0b5eaa4c',
    'jit_add': 'd85632978aa6',
}


def test_results_are_jax_s():
    assert digests(cases, astjax, sparse, jnp) == ORACLE


def test_dense_values_are_numpy_s():
    S, Sd = sparse.BCOO.fromdense(X), sparse.BCOO.fromdense(X, n_dense=1)
    close((S + sparse.BCOO.fromdense(Y)).todense(), X + Y)
    close((S * sparse.BCOO.fromdense(Y)).todense(), X * Y)
    close((sparse.BCOO.fromdense(M) @ sparse.BCOO.fromdense(N)).todense(), M @ N)
    close(S[1:3, ::2, -1].todense(), X[1:3, ::2, -1])
    close(Sd[1, jnp.array([2, 2])].todense(), X[1, [2, 2]])   # (JAX 0.10.2 fails here)
    close(S[jnp.array([[2], [0]]), 1:].todense(), X[np.array([[2], [0]]), 1:])
    close(S.reshape(4, 15).todense(), X.reshape(4, 15))


def test_comparisons_and_dense_results_raise_jax_s_error():
    S = sparse.BCOO.fromdense(X)
    for f in (lambda: S > 0, lambda: S + 1.0, lambda: 2.0 / S, lambda: S - Y):
        with pytest.raises(NotImplementedError) as e:
            f()
        assert isinstance(e.value, AstjaxError)


def test_grad_of_methods_through_data():
    S = sparse.BCOO.fromdense(X, n_batch=1)
    w = np.random.RandomState(2).rand(4, 5).astype(np.float32)

    def f(data):
        T = sparse.BCOO((data, S.indices), shape=S.shape)
        return ((T * T)[2, 1:] * 3.0).sum() + (T.sum(0) @ w.T).sum()
    g = astjax.grad(f)(S.data)
    d = np.asarray(S.data)
    for k in [(2, 0), (2, 3), (0, 1)]:
        e = np.zeros_like(d)
        e[k] = 1e-2
        np.testing.assert_allclose(g[k], (f(d + e) - f(d - e)) / 2e-2, rtol=1e-3)
