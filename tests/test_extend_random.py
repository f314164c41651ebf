"""`astjax.extend.random`: the threefry2x32 hash as a primitive (`threefry2x32_p`, every
rule) and as `threefry_2x32`, the `threefry_prng_impl` object, and typed keys from
seeds with an implementation -- bits equal to jax 0.10.2's (stored here); and the
module's place in the layers (it imports `astjax.random`, so it is a library)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.extend import random as xr

u32 = np.uint32


def test_threefry2x32_p_known_answer_every_path():
    # Random123's known-answer vector for threefry2x32 with 20 rounds
    k1, k2 = u32(0x13198a2e), u32(0x03707344)
    x1, x2 = np.array([0x243f6a88], u32), np.array([0x85a308d3], u32)
    want = ([0xc4923a9c], [0x483df7a0])
    for fn in (lambda *a: xr.threefry2x32_p.bind(*a),
               astjax.jit(lambda *a: xr.threefry2x32_p.bind(*a))):
        y1, y2 = fn(k1, k2, x1, x2)
        np.testing.assert_array_equal(np.asarray(y1), np.array(want[0], u32))
        np.testing.assert_array_equal(np.asarray(y2), np.array(want[1], u32))
    y1, _ = xr.threefry2x32_p.impl(k1, k2, x1, x2)
    np.testing.assert_array_equal(y1, np.array(want[0], u32))
    assert xr.threefry2x32_p.nondiff


def test_threefry_2x32_as_jax():
    kp = (u32(1), u32(2))
    np.testing.assert_array_equal(
        np.asarray(xr.threefry_2x32(kp, jnp.arange(5, dtype=jnp.uint32))),
        [2052595727, 3504730591, 2527474599, 1880214352, 1914734168])
    np.testing.assert_array_equal(
        np.asarray(xr.threefry_2x32(kp, jnp.arange(6, dtype=jnp.uint32).reshape(2, 3))),
        [[2052595727, 3504730591, 1038787879], [1880214352, 1914734168, 1027009547]])
    f = astjax.vmap(lambda c: xr.threefry_2x32((u32(5), u32(9)), c))
    np.testing.assert_array_equal(np.asarray(f(jnp.arange(6, dtype=jnp.uint32).reshape(2, 3))),
                                  [[3105894920, 3329466936, 2167160646],
                                   [2126117625, 749591690, 941319162]])
    with pytest.raises(TypeError, match="uint32"):
        xr.threefry_2x32(kp, jnp.arange(4))


def test_impl_and_seeds_as_jax():
    impl = xr.threefry_prng_impl
    assert (impl.key_shape, impl.name, str(impl)) == ((2,), "threefry2x32", "fry")
    keys = xr.random_seed(jnp.array([1, 2]), impl)
    assert keys.shape == (2,) and str(keys.dtype) == "key<fry>"
    np.testing.assert_array_equal(np.asarray(astjax.random.key_data(keys)), [[0, 1], [0, 2]])
    k = xr.seed_with_impl(impl, 7)
    assert k.shape == () and float(astjax.random.uniform(k)) == np.float32(0.6740899)
    np.testing.assert_array_equal(np.asarray(astjax.random.key_data(
        astjax.random.key(7, impl=impl))), [0, 7])
    np.testing.assert_array_equal(np.asarray(impl.random_bits(
        astjax.random.key_data(k), 32, (3,))), [2895194379, 4185947648, 1300703658])


def test_served_as_jax_extend_random():
    import astjax.jax_alias as alias
    assert {"extend.random", "extend.xla"} <= set(alias.PUBLIC_MODULES)
    assert astjax.extend.random is xr
