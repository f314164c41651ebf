"""Findings of the differential API fuzzer (tests/fuzz/api_run.py, seeds 53150:56150 and
`--new-names` 63000:64000) and of the transformation-chain sweep at depth 3, the
nineteenth session, with JAX 0.10.2's results stored as literals."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp


def test_log1mexp_derivative_is_jax_rule_at_zero():
    # JAX's `defjvps` rule g / expm1(x): +-inf at +-0 where the `where`'s derivative
    # (its other branch) was NaN (api fuzzer seed 53310)
    g = jax.grad(jax.nn.log1mexp)
    assert float(g(-0.0)) == -np.inf and float(g(0.0)) == np.inf
    assert float(g(0.5)) == pytest.approx(1.5414940118789673, rel=1e-6)
    x = np.array([0.5, -0.0, -0.5])
    out = np.asarray(jax.grad(lambda v: jax.nn.log1mexp(v).sum())(x))
    assert out[1] == -np.inf and np.isfinite(out[[0, 2]]).all()


def test_log1mexp_refuses_a_list_as_jax():
    with pytest.raises(TypeError):
        jax.nn.log1mexp([1.0])


# JAX 0.10.2: jnp.linalg.matrix_power(X, 3), as float32 bits
X = np.array([[[5.006569364228056, 0.0], [-0.09636157426264606, 0.7769247442677685]],
              [[-np.inf, -0.07059579733116787], [1.0839864042216827, 0.41551350113487934]]],
             np.float32)
CUBE_BITS = [[[1123744920, 0], [3224783748, 1055923115]],
             [[4290772992, 4290772992], [2139095040, 2139095040]]]


@pytest.mark.parametrize("how", ["eager", "jit", "vmap"])
def test_matrix_power_3_multiplies_in_jax_order(how):
    # JAX computes a**3 as (a @ a) @ a; a @ (a @ a) rounds otherwise and meets inf * 0
    # elsewhere (-inf where JAX has NaN: api fuzzer seed 53898)
    f = lambda a: jnp.linalg.matrix_power(a, 3)   # noqa: E731
    f = {"eager": f, "jit": jax.jit(f), "vmap": jax.vmap(f)}[how]
    np.testing.assert_array_equal(np.asarray(f(X)).view(np.uint32), np.uint32(CUBE_BITS))


def test_matrix_power_exponent_must_be_an_integer():
    # (int(2.5) was taken silently: JAX raises TypeError)
    with pytest.raises(TypeError):
        jnp.linalg.matrix_power(X, 2.5)
    with pytest.raises(TypeError):
        jnp.linalg.matrix_power([[1.0, 2.0], [3.0, 4.0]], 2)


def test_array_of_a_staged_list_stages_as_jax():
    # each element converted to the list's strong dtype, then stacked: JAX's jaxpr
    # (Common_Gotchas cell 19 printed `copy`s and a final conversion)
    text = str(jax.make_jaxpr(lambda a, b: jnp.array([a, b]))(1, 2.0))
    eqns = [ln.split("= ", 1)[1].split(" ")[0].split("[")[0] for ln in text.splitlines() if " = " in ln]
    assert eqns == ["convert_element_type", "broadcast_in_dim", "convert_element_type",
                    "broadcast_in_dim", "concatenate"], text
    out = jax.jit(lambda a: jnp.array([a, 1]) + jnp.int8(1))(2)
    assert out.dtype == np.int32 and not out.weak_type


def test_array_of_typed_keys_is_a_key_array():
    # (JAX stacks typed keys; astjax raised TypeError: a key array made a NumPy array)
    k0, k1 = jax.random.key(0), jax.random.key(1)
    for f in (jnp.array, jax.jit(lambda a, b: jnp.array([a, b]))):
        out = f([k0, k1]) if f is jnp.array else f(k0, k1)
        assert out.shape == (2,) and jax.dtypes.issubdtype(out.dtype, jax.dtypes.prng_key)
        assert jax.random.key_data(out).tolist() == [[0, 0], [0, 1]]


# JAX 0.10.2 (bits): the ranks and the linear interpolation are computed in q's dtype
# (float32 for a Python q), the data kept in a's; astjax promoted a and q together, so a
# bfloat16 / float16 quantile interpolated in bfloat16 / float16 (off by up to 1 %)
X7 = np.random.RandomState(0).randn(7, 5)


def test_quantile_interpolates_in_q_dtype():
    out = jnp.quantile(jnp.asarray(X7, "bfloat16"), 0.3, axis=0)
    assert out.dtype == jnp.bfloat16
    assert np.asarray(out).view(np.uint16).tolist() == [49033, 16075, 48708, 48748, 16004]
    out = jnp.percentile(jnp.asarray(X7, "float16"), 77.0, axis=0)
    assert np.asarray(out).view(np.uint16).tolist() == [13377, 15629, 15002, 15431, 16093]
    out = jnp.quantile(jnp.asarray(X7, "float32"), np.float16(0.3), axis=0)
    assert out.dtype == np.float32
    assert np.asarray(out).view(np.uint32).tolist() == [3213443072, 1053458432, 3192086528,
                                                        3194748928, 1048895488]


def test_quantile_float64_data_float32_q_x64():
    # (api fuzzer seed 63741: the float64 result carries float32 rounding, as JAX's)
    a = np.array([[3.744481555138229], [-6.33033258415794], [-2.1631234511400033]])
    with jax.enable_x64(True):
        out = jnp.quantile(a, np.array([1.0, 0.0], np.float32), keepdims=True)
        assert out.dtype == np.float64
        assert np.asarray(out).ravel().tolist() == [3.7444815635681152, -6.3303327560424805]
