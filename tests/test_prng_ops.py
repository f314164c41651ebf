"""JAX's PRNG equations in staged jaxprs (`astjax/primitives/prng_ops.py`): seeding a
key from a staged seed is one `random_seed[impl=...]` equation, printed as JAX 0.10.2
prints it, with the key data bit for bit JAX's (values recorded with jax 0.10.2 on CPU),
under `jit`, `vmap`, an eager `bind`, and `astjax.source_function`."""
import numpy as np
import pytest

import astjax as jax
from astjax import core
from astjax.primitives.prng_ops import random_seed_p
from astjax.random.impls import rbg_prng_impl, threefry_prng_impl


def _data_of_key(s, impl=None):
    return jax.random.key_data(jax.random.key(s, impl=impl))


def test_random_seed_is_one_equation_printed_as_jax():
    assert str(jax.make_jaxpr(jax.random.key)(np.uint32(0))) == (
        "{ lambda ; a:u32[]. let b:key<fry>[] = random_seed[impl=fry] a in (b,) }")
    assert str(jax.make_jaxpr(jax.vmap(jax.random.key))(np.arange(3, dtype=np.int32))) == (
        "{ lambda ; a:i32[3]. let b:key<fry>[3] = random_seed[impl=fry] a in (b,) }")
    eqn = jax.make_jaxpr(jax.random.PRNGKey)(np.int32(0)).jaxpr.eqns[0]
    assert eqn.primitive.name == "random_seed" and eqn.params == {"impl": threefry_prng_impl}


def test_random_seed_key_data_is_jax():
    f = jax.jit(_data_of_key)
    assert f(np.uint32(7)).tolist() == [0, 7]
    assert f(np.int32(-3)).tolist() == [0, 4294967293]
    assert f(np.int32(2**31 - 1)).tolist() == [0, 2147483647]
    rbg = jax.jit(jax.vmap(lambda s: _data_of_key(s, "rbg")))
    assert rbg(np.array([1, -2], np.int32)).tolist() == [[0, 1, 0, 1],
                                                         [0, 4294967294, 0, 4294967294]]
    fry4 = jax.jit(lambda s: _data_of_key(s, "threefry4x32"))
    assert fry4(np.int32(9)).tolist() == [1568681876, 1040149788, 1161187268, 2746142731]


def test_random_seed_bound_eagerly_batched_and_as_source():
    seeds = np.array([[3, -1], [0, 5]], np.int32)
    want = np.stack([seeds >> 31 & 0, seeds.astype(np.uint32)], -1).astype(np.uint32)
    # an interpreter's eager bind: any shape of seeds, one key per seed
    np.testing.assert_array_equal(core.bind(random_seed_p, seeds, impl=threefry_prng_impl), want)
    got = core.bind(random_seed_p, seeds[0], impl=rbg_prng_impl)
    assert np.asarray(got).shape == (2, 4)
    np.testing.assert_array_equal(jax.vmap(jax.vmap(_data_of_key))(seeds), want)
    np.testing.assert_array_equal(jax.vmap(jax.vmap(_data_of_key), in_axes=1)(seeds),
                                  want.swapaxes(0, 1))
    g = jax.source_function(_data_of_key, np.int32(0))
    assert g(np.int32(-3)).tolist() == [0, 4294967293]


def test_random_seed_of_a_float_is_a_located_type_error():
    with pytest.raises(TypeError, match="PRNG seed must be an integer"):
        core.bind(random_seed_p, np.float32(1.0), impl=threefry_prng_impl)
    with pytest.raises(TypeError, match="seed must be an integer"):
        jax.jit(jax.random.key)(np.float32(1.0))


def test_a_python_int_seed_is_staged_on_its_int64_reading():
    """A Python int seed is read as int64, as JAX reads it: one random_seed equation on
    the canonicalized literal when staged; outside int64 JAX's OverflowError (it was
    silently wrapped to 64 bits)."""
    f = lambda x: jax.random.key_data(jax.random.key(0)) + x   # noqa: E731
    assert "b:key<fry>[] = random_seed[impl=fry] 0:i32[]" in str(jax.make_jaxpr(f)(np.uint32(1)))
    for s, want in ((2**40 + 5, [0, 5]), (2**63 - 1, [0, 4294967295]), (-1, [0, 4294967295])):
        assert jax.random.key_data(jax.random.key(s)).tolist() == want
        assert jax.jit(lambda: _data_of_key(s))().tolist() == want
    for s in (2**64, 2**63, -2**63 - 1):
        for fn in (lambda: jax.random.key(s), jax.jit(lambda: jax.random.PRNGKey(s))):
            with pytest.raises(OverflowError, match="too large to convert"):
                fn()


def test_a_python_int_seed_with_x64_is_an_int64_literal(x64):
    assert str(jax.make_jaxpr(lambda: jax.random.key(2**40))()) == (
        "{ lambda ; . let\n    a:key<fry>[] = random_seed[impl=fry] 1099511627776:i64[]\n  in (a,) }")
    assert jax.random.PRNGKey(2**40 + 5, impl="rbg").tolist() == [256, 5, 256, 5]
    assert jax.jit(lambda: _data_of_key(2**63 - 1))().tolist() == [2147483647, 4294967295]
