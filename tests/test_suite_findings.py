"""Findings of running other projects' own test suites unchanged on astjax
(tests/ecosystem/run_optax_tests.py --root: numpyro's `test/`, blackjax's `tests/`;
docs/ecosystem.md): each a minimal form of a test that failed on astjax and passed on
JAX 0.10.2 (JAX's results stored as literals)."""
import functools

import numpy as np
import pytest

import astjax as jax


def _forwarding(f):
    # numpyro's `validate_sample`: a decorator forwarding `(self, *args, **kwargs)`
    @functools.wraps(f)
    def wrapper(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    return wrapper


class _Dist:
    @_forwarding
    def log_prob(self, value):
        return value * 2.0

    def plain(self, value):
        return value + 1.0


def test_jit_of_a_bound_method_under_a_forwarding_decorator_binds_self():
    # numpyro test_distributions_util.py::test_no_tracer_leak_at_lazy_property_log_prob:
    # `jax.jit(dist.log_prob)(1.0)`; astjax followed the bound method's `__wrapped__` to
    # the unbound function and raised ArityError "missing a required argument: 'value'"
    assert float(jax.jit(_Dist().log_prob)(1.0)) == 2.0
    assert float(jax.vmap(_Dist().log_prob)(np.ones(2, np.float32))[1]) == 2.0


def test_a_bound_method_called_with_too_many_arguments_is_still_a_located_type_error():
    with pytest.raises(TypeError, match="positional argument"):
        jax.jit(_Dist().plain)(1.0, 2.0)


def test_the_var_method_of_a_staged_value():
    # blackjax's diagnostics: `x.var(axis=0)` under jit / in a branch raised "'Var'
    # object is not callable" (the staged value's IR variable hid the array method)
    import astjax.numpy as jnp
    x = jnp.arange(6.).reshape(2, 3)
    np.testing.assert_allclose(jax.jit(lambda a: a.var(axis=0))(x), np.var(np.asarray(x), 0))
    np.testing.assert_allclose(
        jax.lax.cond(True, lambda a: a.var(ddof=1), lambda a: a[0, 0], x),
        np.var(np.asarray(x), ddof=1))
    np.testing.assert_allclose(jax.grad(lambda a: a.var())(jnp.arange(3.)),
                               [-2 / 3, 0, 2 / 3], rtol=1e-6)


def test_reshape_errors_read_as_jaxs():
    # numpyro's test_reshape_transform_invalid matches "cannot reshape array"
    import astjax.numpy as jnp
    with pytest.raises(TypeError, match=r"cannot reshape array of shape \(2,\) \(size 2\) "
                                        r"into shape \(2, 3\) \(size 6\)"):
        jnp.reshape(jnp.arange(2), (2, 3))
    with pytest.raises(TypeError, match=r"because the product of specified axis sizes \(4\) "
                                        r"does not evenly divide 6"):
        jnp.arange(6).reshape(4, -1)


def test_a_slice_bound_that_is_a_computed_array():
    # blackjax's optimizers/test_optimizers.py: `x[: status.iter_num + 1]` with
    # `iter_num` returned by jit raised StagedSliceError; JAX reads a concrete
    # integer scalar array's value (operator.index)
    import astjax.numpy as jnp
    x = jnp.arange(20)
    n = jax.jit(lambda a: a.sum())(jnp.array([5, 6]))
    np.testing.assert_array_equal(x[: n + 1], np.arange(12))
    np.testing.assert_array_equal(x[jnp.array(2): jnp.array(11): jnp.array(3)], [2, 5, 8])
    np.testing.assert_array_equal(x[np.array(-3):], [17, 18, 19])
    np.testing.assert_array_equal(x.at[: jnp.array(2)].set(0)[:3], [0, 0, 2])
    for bad in (jnp.array(1.5), jnp.array([3]), jnp.array(True)):
        with pytest.raises(TypeError, match="Only integer scalar arrays"):
            x[:bad]
    with pytest.raises(IndexError):  # a staged bound stays JAX's IndexError
        jax.jit(lambda a, k: a[:k])(x, 3)


def test_lax_map_with_a_batch_size_over_typed_keys():
    # blackjax's smc/test_smc.py::test_smc_waste_free_batched: `lax.map(kernel, (keys,
    # xs), batch_size=2)` over `jax.random.key` keys raised TypeError "Cannot interpret
    # 'key<fry>' as a data type" (the batching sliced the keys with the array-only lax)
    keys = jax.random.split(jax.random.key(0), 5)
    pos = np.arange(5, dtype=np.float32)

    def kernel(t):
        key, p = t
        return jax.random.normal(jax.random.split(key, 3)[0]) + p, jax.random.split(key)[1]

    for run in (lambda f: f, jax.jit):
        ys, ks = run(lambda k, p: jax.lax.map(kernel, (k, p), batch_size=2))(keys, pos)
        # JAX 0.10.2's values
        np.testing.assert_allclose(ys, [-0.57478017, 1.1989074, 0.5155969, 4.681822,
                                        4.865561], rtol=1e-5)
        assert ks.shape == (5,) and jax.dtypes.issubdtype(ks.dtype, jax.dtypes.prng_key)
        np.testing.assert_array_equal(jax.random.key_data(ks), jax.random.key_data(
            jax.lax.map(kernel, (keys, pos))[1]))


def test_vmap_returning_typed_keys_while_a_vmappable_type_is_registered():
    # found running the above in one process with tests that import
    # jax.experimental.sparse (it registers BCOO / BCSR as vmappable): `vmap` of a
    # function returning typed keys then raised KeyError PRNGKeyArray
    from astjax.interpreters import batching

    class Box:
        def __init__(self, x):
            self.x = x

    keys = jax.random.split(jax.random.key(0), 4)
    f = jax.vmap(lambda k: jax.random.split(k)[0])
    want = np.asarray(jax.random.key_data(f(keys)))
    batching.register_vmappable(Box, int, int, lambda c, n, b, ax: Box(c(n, b.x, ax)),
                                lambda c, n, b, ax: Box(c(n, b.x, ax)), None)
    try:
        got = jax.vmap(lambda k: jax.random.split(k)[0])(keys)
        assert got.shape == (4,)
        np.testing.assert_array_equal(jax.random.key_data(got), want)
    finally:
        batching.unregister_vmappable(Box)
