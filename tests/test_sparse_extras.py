"""`sparse.random_bcoo` (the same draws as JAX's from one key: layouts, `nse` as a
count or a fraction, unique / sorted indices, another generator, under `jit`, JAX's
errors), `make_jaxpr` of `sparse.todense` on a dense value (JAX's `todense[tree=...]`
equation), and a `custom_jvp` function under `sparsify` (evaluated with the sparse
rules, JAX's AssertionError when differentiated). Results are compared with real JAX
0.10.2's through their digests (`ORACLE`, printed by
`cd tests; JAXENV/bin/python test_sparse_oracle.py test_sparse_extras jax`)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.errors import AstjaxError
from test_sparse_oracle import digests

X = np.array([[0., 1., 0.], [2., 0., 3.]], np.float32)


def cases(jax, sparse, jnp):
    """name -> thunk."""
    k = jax.random.PRNGKey(0)
    rb = sparse.random_bcoo

    @jax.custom_jvp
    def twice(x):
        return x * 2.0

    @twice.defjvp
    def _twice_jvp(p, t):
        return twice(p[0]), t[0] * 2.0

    @jax.custom_jvp
    def sin(x):
        return jnp.sin(x)
    sin.defjvp(lambda p, t: (sin(p[0]), jnp.cos(p[0]) * t[0]))
    S, Sb = sparse.BCOO.fromdense(X), sparse.BCOO.fromdense(np.stack([X, -X]), n_batch=1)
    return {
        "default": lambda: rb(k, (4, 5)), "nse": lambda: rb(k, (4, 5), nse=7),
        "batch": lambda: rb(k, (3, 4, 5), nse=0.3, n_batch=1),
        "batch2": lambda: rb(k, (2, 3, 4), nse=2, n_batch=2),
        "dense": lambda: rb(k, (3, 4, 2), nse=5, n_dense=1),
        "no_sparse": lambda: rb(k, (3, 2), nse=0, n_batch=1, n_dense=1),
        "repeated_sorted": lambda: rb(k, (4, 5), nse=9, unique_indices=False,
                                      sorted_indices=True),
        "dtypes": lambda: rb(jax.random.PRNGKey(3), (6, 5), dtype=jnp.float16,
                             indices_dtype=jnp.int16),
        "normal": lambda: rb(k, (4, 5), generator=jax.random.normal),
        "randint": lambda: rb(k, (4, 5), dtype=jnp.int32, generator=jax.random.randint,
                              minval=1, maxval=9),
        "typed_key": lambda: rb(jax.random.key(1), (5, 5), nse=4),
        "jit": lambda: jax.jit(lambda key: rb(key, (4, 5), nse=3))(k),
        "nse_too_big": lambda: rb(k, (4, 5), nse=20),
        "nse_float": lambda: rb(k, (4, 5), nse=1.5),
        "bad_layout": lambda: rb(k, (4, 5), n_batch=2, n_dense=1),
        "index_range": lambda: rb(k, (20, 20), indices_dtype=jnp.int8),
        "custom_jvp": lambda: sparse.sparsify(twice)(S),
        "custom_jvp_sin": lambda: sparse.sparsify(sin)(Sb),
        "custom_jvp_jit": lambda: jax.jit(sparse.sparsify(twice))(Sb),
        "custom_jvp_grad": lambda: jax.grad(lambda d: sparse.sparsify(twice)(
            sparse.BCOO((d, S.indices), shape=S.shape)).data.sum())(S.data),
        "todense_grad": lambda: jax.grad(lambda x: (sparse.todense(x) ** 2).sum())(X),
        "todense_vmap": lambda: jax.vmap(sparse.todense)(X),
    }


ORACLE = {
    'default': '1e4da8e49191',
    'nse': 'cfbf7b69c486',
    'batch': '065a7fbc5b96',
    'batch2': '9e55fbe00fc3',
    'dense': '3f12b8534aba',
    'no_sparse': 'd101c8dffce1',
    'repeated_sorted': '1c3dd0eaece6',
    'dtypes': '741a958cbf77',
    'normal': 'c181ad558e2c',
    'randint': '471dee0e2dad',
    'typed_key': '660fd95344f8',
    'jit': 'f33aa73b751b',
    'nse_too_big': 'ValueError',
    'nse_float': 'AssertionError',
    'bad_layout': 'ValueError',
    'index_range': 'ValueError',
    'custom_jvp': '66092c386f09',
    'custom_jvp_sin': '787b682a3420',
    'custom_jvp_jit': '42d28ea5de46',
    'custom_jvp_grad': 'AssertionError',
    'todense_grad': '24530b73016a',
    'todense_vmap': '86e2c9c0483e',
}


def test_results_are_jax_s():
    assert digests(cases, astjax, sparse, jnp) == ORACLE


def test_jaxprs_are_jax_s():
    assert str(astjax.make_jaxpr(sparse.todense)(X)) == (
        "{ lambda ; a:f32[2,3]. let b:f32[2,3] = todense[tree=PyTreeDef(*)] a in (b,) }")
    S = sparse.BCOO.fromdense(X)

    @astjax.custom_jvp
    def twice(x):
        return x * 2.0
    twice.defjvp(lambda p, t: (twice(p[0]), t[0] * 2.0))
    text = str(astjax.make_jaxpr(sparse.sparsify(twice))(S))
    assert text.startswith("{ lambda ; a:f32[3] b:i32[3,2]. let\n    c:f32[3] d:i32[3,2] = "
                           "custom_jvp_call[")
    assert "g:f32[3] = mul e 2.0:f32[]" in text


def test_errors_are_located_astjax_errors():
    k = astjax.random.PRNGKey(0)
    for f, cls in ((lambda: sparse.random_bcoo(k, (4, 5), nse=1.5), AssertionError),
                   (lambda: sparse.random_bcoo(k, (4, 5), nse=20), ValueError)):
        with pytest.raises(cls) as e:
            f()
        assert isinstance(e.value, AstjaxError)
