"""Typed PRNG keys (`random.key`, dtype `key<fry>`): the program in
tests/oracle/record_typed_keys.py run on astjax against JAX 0.10.2's stored values,
plus the errors and properties JAX gives them."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax, random
from astjax.random.key_array import PRNGKeyArray

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_typed_keys  # noqa: E402
from oracle import compare  # noqa: E402

EXPECTED = compare.load("typed_keys")


SAMPLERS = record_typed_keys.samplers(astjax, jnp)


@pytest.fixture(scope="module")
def result():
    return record_typed_keys.run(astjax, jnp, lax, samples=False)


def _sampled(name):
    """(sampler, 0 eager / 1 jit) of a `sample_*` / `jit_*` case, else None."""
    kind, _, rest = name.partition("_")
    return (SAMPLERS[rest], kind == "jit") if kind in ("sample", "jit") and \
        rest in SAMPLERS else None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(result, name):
    # (a sampler's case computes only its own value: the CI tier samples this table)
    s = _sampled(name)
    got = record_typed_keys.sample(astjax, s[0], (s[1],))[0] if s else result[name]
    want = EXPECTED[name]
    if "\"" in json.dumps(want):  # holds strings (reprs, dtypes, key paths): exact
        assert compare.plain(got) == want
    else:
        np.testing.assert_allclose(_flat(got), _flat(want), rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def _flat(v):
    """Nested lists of numbers (of ragged shapes) as one float vector."""
    if isinstance(v, (list, tuple)):
        return np.concatenate([_flat(x) for x in v]) if v else np.zeros(0)
    return np.asarray([float(v)])


def test_key_is_not_a_numpy_array():
    with pytest.raises(TypeError, match="key_data"):
        np.asarray(random.key(0))


def test_samplers_take_one_key():
    with pytest.raises(ValueError):
        random.normal(random.split(random.key(0), 3), (2,))


def test_wrap_key_data_checks_its_argument():
    with pytest.raises(TypeError):
        random.wrap_key_data(jnp.zeros(3, jnp.uint32))
    with pytest.raises(TypeError):
        random.wrap_key_data(random.key(0))


def test_raw_keys_stay_raw():
    raw = random.PRNGKey(0)
    assert not isinstance(random.split(raw), PRNGKeyArray)
    assert isinstance(random.split(random.key(0)), PRNGKeyArray)
    np.testing.assert_array_equal(random.key_data(random.key(0)), raw)
    assert random.key_data(raw) is raw
    assert random.key_impl(random.key(0)) == "threefry2x32"


def test_key_data_under_jit_and_back():
    def f(k):
        return random.wrap_key_data(random.key_data(k) + jnp.uint32(1))
    k = astjax.jit(f)(random.key(0))
    np.testing.assert_array_equal(random.key_data(k), [1, 1])


def test_key_from_traced_seed():
    def f(seed):
        return random.uniform(random.key(seed), (2,))
    np.testing.assert_allclose(astjax.jit(f)(3), random.uniform(random.key(3), (2,)))


def test_keys_are_unhashable_and_have_no_truth_value():
    with pytest.raises(TypeError):
        hash(random.key(0))
    with pytest.raises(TypeError):
        bool(random.key(0))


def test_squeeze_ravel_broadcast():
    ks = random.split(random.key(1), 3).reshape(3, 1)
    assert ks.squeeze().shape == (3,) and ks.squeeze(1).shape == (3,)
    assert ks.ravel().shape == (3,) and ks.reshape(-1).shape == (3,)
    assert random.key(0).broadcast_to((2, 2)).shape == (2, 2)
    assert ks.swapaxes(0, 1).shape == (1, 3)


def test_typeof_key():
    assert str(astjax.typeof(random.split(random.key(0), 3))) == "key<fry>[3]"
    assert random.key(0).aval.shape == ()


def test_gamma_with_stopped_parameter_differentiates():
    def f(x):
        return jnp.sum(x * random.gamma(random.key(0), lax.stop_gradient(x), (2,)))
    g = astjax.grad(f)(2.0)
    np.testing.assert_allclose(g, jnp.sum(random.gamma(random.key(0), 2.0, (2,))), rtol=1e-6)

# ------------------------------------------------- key types in printed jaxprs
# Each expected text is JAX 0.10.2's `make_jaxpr` output for the same function.


def key_words(k):
    return random.key_data(k)


def bump_key(c, x):
    c2 = random.wrap_key_data(random.key_data(c) + 1)
    return c2, random.key_data(c)


def three_bumps(k):
    return lax.scan(bump_key, k, None, length=3)


def two_normals(k):
    return random.normal(k, (2,))


def test_jaxpr_prints_key_types_as_jax():
    k = random.key(0)
    assert str(astjax.make_jaxpr(key_words)(k)) == (
        "{ lambda ; a:key<fry>[]. let b:u32[2] = random_unwrap a in (b,) }")
    assert str(astjax.make_jaxpr(random.wrap_key_data)(random.key_data(k))) == (
        "{ lambda ; a:u32[2]. let b:key<fry>[] = random_wrap[impl=fry] a in (b,) }")
    assert str(astjax.make_jaxpr(astjax.vmap(key_words))(random.split(k, 4))) == (
        "{ lambda ; a:key<fry>[4]. let b:u32[4,2] = random_unwrap a in (b,) }")
    assert str(astjax.make_jaxpr(three_bumps)(k)) == """\
{ lambda ; a:key<fry>[]. let
    b:key<fry>[] c:u32[3,2] = scan[
      jaxpr={ lambda ; d:key<fry>[]. let
          e:u32[2] = random_unwrap d
          f:u32[2] = add e 1:u32[]
          g:key<fry>[] = random_wrap[impl=fry] f
          h:u32[2] = random_unwrap d
        in (g, h) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b, c) }"""
    # the key type is a printing annotation: every pass reads the data's type
    (v,) = astjax.make_jaxpr(key_words)(k).jaxpr.invars
    assert v.aval == astjax.core.ShapedArray((2,), jnp.uint32)
    assert hash(v.aval) == hash(astjax.core.ShapedArray((2,), jnp.uint32))


def test_key_programs_still_run_and_round_trip_through_source():
    k = random.key(0)
    final, words = astjax.jit(three_bumps)(k)
    np.testing.assert_array_equal(random.key_data(final), [3, 3])
    np.testing.assert_array_equal(words, [[0, 0], [1, 1], [2, 2]])
    regenerated = astjax.source_function(three_bumps, k)
    for f in (regenerated, astjax.jit(regenerated)):
        final, words = f(k)
        np.testing.assert_array_equal(random.key_data(final), [3, 3])
        np.testing.assert_array_equal(words, [[0, 0], [1, 1], [2, 2]])
    # a sampler reads the key's data (random_unwrap), here sliced word by word
    np.testing.assert_array_equal(astjax.source_function(two_normals, k)(k), two_normals(k))


def test_jnp_shape_functions_act_on_whole_keys():
    # JAX 0.10.2 gives these shapes; broadcast_to of a key was a raw TypeError
    ks = random.split(random.key(0), 3)
    data = np.asarray(random.key_data(ks))
    assert jnp.reshape(ks, (3, 1)).shape == (3, 1)
    np.testing.assert_array_equal(random.key_data(jnp.reshape(ks, (3, 1))), data[:, None])
    assert jnp.transpose(ks.reshape(3, 1)).shape == (1, 3)
    assert jnp.squeeze(ks.reshape(3, 1)).shape == (3,)
    assert jnp.expand_dims(ks, 0).shape == (1, 3)
    assert jnp.ravel(ks.reshape(3, 1)).shape == (3,)
    b = jnp.broadcast_to(ks[0], (2,))
    np.testing.assert_array_equal(random.key_data(b), np.stack([data[0], data[0]]))


def test_key_arrays_compare_through_jnp_as_jax():
    # chex's assert_trees_all_equal on keys calls jnp.array_equal(x, y, equal_nan=True);
    # JAX 0.10.2: equal / not_equal / array_equal / array_equiv compare the keys
    k, k2 = random.key(0), random.key(1)
    ks = random.split(k, 3)
    for f in (lambda a, b: jnp.array_equal(a, b, equal_nan=True), jnp.array_equal,
              jnp.array_equiv, astjax.jit(jnp.array_equal)):
        assert bool(f(k, k)) and not bool(f(k, k2))
    assert not bool(jnp.array_equal(ks, k)) and bool(jnp.array_equiv(ks[1:2], ks[1]))
    np.testing.assert_array_equal(jnp.equal(ks, ks[1]), [False, True, False])
    np.testing.assert_array_equal(jnp.not_equal(ks, ks[1]), [True, False, True])
    assert not bool(astjax.jit(jnp.equal)(k, k2))
