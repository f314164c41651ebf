"""`sparsify` through `lax.cond`, `lax.while_loop`, `lax.fori_loop` and `lax.scan`
with sparse operands and carries, as far as JAX 0.10.2's rules go (a scan over
carries only: scanned inputs raise its NotImplementedError, stacked outputs its
ValueError). Each case's result (layout, flags, stored buffers, or the error class) is
compared with real JAX's through its digest (`ORACLE`, printed by
`cd tests; .jaxenv/bin/python test_sparse_oracle.py test_sparse_control_flow jax`)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.errors import AstjaxError
from test_sparse_oracle import digests, rand

X = rand(np.random.RandomState(0), (4, 5))


def cases(jax, sparse, jnp):
    """name -> thunk."""
    lax = jax.lax
    S, T = sparse.BCOO.fromdense(X), sparse.BCOO.fromdense(X.T[:4, :4].repeat(2, 1)[:, :5])
    sp = sparse.sparsify

    def cond(f, g):
        return lambda s, p: lax.cond(p > 0, f, g, s)
    return {
        "cond": lambda: sp(cond(lambda a: a * 2.0, lambda a: -a))(S, 1.0),
        "cond_false": lambda: sp(cond(lambda a: a * 2.0, lambda a: -a))(S, -1.0),
        "cond_dense_out": lambda: sp(cond(lambda a: a @ jnp.ones(5),
                                          lambda a: a @ jnp.zeros(5)))(S, 1.0),
        "cond_same_nse": lambda: sp(cond(lambda a: a + a, lambda a: a))(S, 1.0),
        "cond_nse_mismatch": lambda: sp(lambda s, t, p: lax.cond(
            p > 0, lambda a, b: a + b, lambda a, b: a, s, t))(S, T, 1.0),
        "while": lambda: sp(lambda s: lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, s)))(S),
        "while_sparse_test": lambda: sp(lambda s: lax.while_loop(
            lambda c: c.sum() < 100.0, lambda c: c * 2.0, s))(S),
        "fori": lambda: sp(lambda s: lax.fori_loop(0, 3, lambda i, c: c * 2.0, s))(S),
        "scan_carry": lambda: sp(lambda s: lax.scan(
            lambda c, _: (c * 2.0, None), s, None, length=3))(S),
        "scan_ys": lambda: sp(lambda s: lax.scan(
            lambda c, _: (c * 2.0, c.sum()), s, None, length=3))(S),
        "scan_xs": lambda: sp(lambda s: lax.scan(lambda c, x: (c + x.sum(), None), 0.0, s))(S),
        "scan_dense_xs": lambda: sp(lambda s, xs: lax.scan(
            lambda c, x: (c * x, None), s, xs))(S, jnp.arange(3.)),
        "jit_cond": lambda: jax.jit(sp(cond(lambda a: a * 2.0, lambda a: -a)))(S, 1.0),
    }


ORACLE = {
    'cond': '1fa72d1935ea',
    'cond_false': '5c62de355777',
    'cond_dense_out': 'd5b63025cbcd',
    'cond_same_nse': '1fa72d1935ea',
    'cond_nse_mismatch': 'TypeError',
    'while': '0417b7bfa2d2',
    'while_sparse_test': '9375218b9c15',
    'fori': '9375218b9c15',
    'scan_carry': '642d521c86f6',
    'scan_ys': 'ValueError',
    'scan_xs': 'NotImplementedError',
    'scan_dense_xs': 'NotImplementedError',
    'jit_cond': '1fa72d1935ea',
}


def test_results_are_jax_s():
    assert digests(cases, astjax, sparse, jnp) == ORACLE


def test_refusals_are_located_astjax_errors():
    S = sparse.BCOO.fromdense(X)
    with pytest.raises(NotImplementedError, match="x values") as e:
        sparse.sparsify(lambda s: astjax.lax.scan(lambda c, x: (c + x.sum(), None), 0.0, s))(S)
    assert isinstance(e.value, AstjaxError)
    with pytest.raises(ValueError, match="stacked outputs") as e:
        sparse.sparsify(lambda s: astjax.lax.scan(
            lambda c, _: (c * 2.0, c.sum()), s, None, length=3))(S)
    assert isinstance(e.value, AstjaxError)


def test_grad_through_a_sparsified_loop():
    S = sparse.BCOO.fromdense(X)

    def f(data):
        # (unique indices: c * c multiplies the data, else the entries would multiply)
        s = sparse.BCOO((data, S.indices), shape=S.shape, unique_indices=True)
        out = sparse.sparsify(lambda a: astjax.lax.fori_loop(0, 3, lambda i, c: c * c, a))(s)
        return out.data.sum()
    np.testing.assert_allclose(astjax.grad(f)(S.data), 8 * np.asarray(S.data) ** 7, rtol=1e-5)
