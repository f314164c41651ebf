"""Findings of JAX's docstring examples (tests/fuzz/doc_examples.py) on astjax, the
eighteenth session: `scipy.stats.poisson.entropy` (its docstring example raised
AttributeError) and `poisson.cdf`, with JAX 0.10.2's values stored as literals."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.scipy.stats import poisson
from jax_hosts import assert_one_of

MU = [0., 0.5, 9.99, 10., 55.5, 99.9, 100., 1e4, -1.]
# JAX 0.10.2: poisson.entropy(jnp.array(MU)) (each regime: 0, summed below 10 and
# below 100, Stirling's expansion from 100 on, NaN below 0)
H = [0.0, 0.9276375770568848, 2.5608913898468018, 2.5614070892333984, 3.4256207942962646,
     3.720187187194824, 3.7206902503967285, 6.0241007804870605, np.nan]


def test_entropy_docstring_example_is_jax_digits():
    out = poisson.entropy(5.0)
    assert out.dtype == np.float32 and not out.weak_type
    assert float(out) == 2.2043943405151367
    np.testing.assert_array_equal(np.asarray(poisson.entropy(jnp.array([1, 10, 100]))),
                                  np.float32([1.3048418760299683, 2.5614070892333984,
                                              3.7206902503967285]))


def test_entropy_regimes_are_jax_digits():
    np.testing.assert_array_equal(np.asarray(poisson.entropy(jnp.array(MU))),
                                  np.float32(H))
    np.testing.assert_array_equal(np.asarray(jax.jit(poisson.entropy)(jnp.array(MU))),
                                  np.float32(H))


def test_entropy_broadcasts_loc_and_refuses_lists():
    out = poisson.entropy(jnp.ones((2, 1)), jnp.zeros(3))
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 1.3048418760299683,
                                                           np.float32))
    with pytest.raises(TypeError):
        poisson.entropy([1.0])


def test_cdf_values_and_weak_types():
    # JAX 0.10.2: 0 below loc, Q(floor(k - loc) + 1, mu) elsewhere
    out = poisson.cdf(jnp.arange(-2, 6) * 0.7, 2.5)
    assert out.dtype == np.float32 and not out.weak_type   # (its 0 is a strong constant)
    np.testing.assert_allclose(np.asarray(out), [0., 0., 0.08208497, 0.08208497, 0.2872975,
                                                 0.5438132, 0.5438132, 0.75757635],
                               rtol=3e-6)
    s = poisson.cdf(3, 2)
    assert s.weak_type
    np.testing.assert_allclose(float(s), 0.85712355, rtol=1e-6)
    np.testing.assert_allclose(float(poisson.cdf(2., 3., 1)), 0.19914828, rtol=5e-6)


def _hex(x):
    return np.asarray(x).tobytes().hex()


def test_var_std_divide_by_a_run_time_count_as_jax():
    # JAX's var/std compile with the correction as an operand: eager digits differ from
    # those of jit(var), where it is a constant (JAX 0.10.2's bits stored)
    rng = np.random.RandomState(3)
    a = rng.randn(6, 6).astype(np.float32)
    v = rng.randn(300).astype(np.float32)
    assert _hex(jnp.var(v)) == "14068a3f"
    assert _hex(jax.jit(jnp.var)(v)) == "15068a3f"
    assert _hex(jnp.std(v)) == "dcea843f"
    assert _hex(jnp.var(v, ddof=1)) == "417c8a3f"
    assert _hex(jnp.std(a, axis=0)) == "31af633f5bc9993f3a31313fbaa5133f621f633f00338d3f"
    assert np.isnan(float(jnp.var(jnp.arange(5), ddof=5)))
    with pytest.raises(ValueError):
        jnp.var(v, ddof=1, correction=1)


def test_cross_is_compiled_as_jax():
    # JAX's jnp.cross is a jitted function: its a1 b2 - a2 b1 is one fused program
    rng = np.random.RandomState(1)
    a, b = rng.randn(2000, 3).astype(np.float32), rng.randn(2000, 3).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.cross(a, b)),
                                  np.asarray(jax.jit(jnp.cross)(a, b)))


def test_slerp_docstring_example_is_jax_digits():
    # quaternions normalized by a dot product, as JAX's (a sum of squares differed in
    # the last digit; as_euler printed 0 where JAX prints -2.3841858e-07)
    from astjax.scipy.spatial.transform import Rotation, Slerp
    rots = jnp.array([[90, 0, 0], [0, 45, 0], [0, 0, -30]])
    slerp = Slerp.init([0, 1, 2], Rotation.from_euler('zxy', rots, degrees=True))
    assert _hex(slerp.rotvecs) == "622b1d3f622b1dbf66b8bdbf225a44bff708febe1573523e"
    out = slerp([0, 0.5, 1, 1.5, 2]).as_euler('zxy')
    assert _hex(out) == ("da0fc93f000000000000000020645a3f8834c63e70f3353e000080b4dc0f493f"
                         "00000000c01c68bd70c5c83eb02391be00000000000080b4940a06bf")


def test_array_byteswap_as_jax():
    # its docstring example raised AttributeError (JAX 0.10.2's values)
    x = jnp.arange(5, dtype="int32")
    assert x.byteswap().tolist() == [0, 16777216, 33554432, 50331648, 67108864]
    assert np.array(x.byteswap()).view(">i4").tolist() == [0, 1, 2, 3, 4]
    assert _hex(jnp.array([1.5, -2.0], jnp.float16).byteswap()) == "3e00c000"
    assert _hex(jnp.array([1 + 2j], jnp.complex64).byteswap()) == "3f80000040000000"
    assert jnp.array([True, False]).byteswap().tolist() == [True, False]
    assert jax.vmap(lambda a: a.byteswap())(jnp.ones((2, 3), jnp.int16)).tolist() == [[256] * 3] * 2


# JAX 0.10.2's lax.linalg.cholesky_update(cholesky(spd).T, a[0]) (tests below), bit for bit,
# on each host kind it was recorded on (tests/jax_hosts.py)
CHOLUPD = {
    "epyc-a": ("2a088740ac3cf13ef926dd3f9fe6a53f77a4eb3fcec1e0bfa85557309ad30240ef68113e"
               "9431113e9ee80d40a2b111bc02e4b330e3a32d30ddc7ba3f5c68d13e7973a03fa403df3e"
               "c2d27031a574e8303148c6b110be6840798c4d3f267b553d02be8c301dda0730a9c2e7b0"
               "d290533232d9194025328e3edcb2d4b0ea4e4db026202f31a7dd9fb2fa9b7f2f80c0f33f"),
    "epyc-b": ("2a088740ac3cf13ef926dd3f9fe6a53f77a4eb3fcec1e0bfa85557309ad30240ef68113e"
               "9431113e9ee80d40a2b111bc02e4b330e3a32d30ddc7ba3f5c68d13e7973a03fa403df3e"
               "c2d27031a574e8303148c6b110be6840798c4d3f267b553d02be8c301dda0730a9c2e7b0"
               "d290533232d9194023328e3edcb2d4b0ea4e4db026202f31a7dd9fb2fa9b7f2f80c0f33f"),
}


def test_cholesky_update_is_jax_bits():
    # eager and jitted: the Givens loop lowered so that XLA fuses it as JAX's program
    # (the rows below the diagonal, rounding noise, and two entries differed in the last bit)
    rng = np.random.RandomState(0)
    a = rng.randn(6, 6).astype(np.float32)
    spd = a @ a.T + np.eye(6, dtype=np.float32)
    lin = jax.lax.linalg
    r = lin.cholesky(spd).T
    host = assert_one_of(_hex(lin.cholesky_update(r, a[0])), CHOLUPD, "cholesky_update")
    assert _hex(jax.jit(lin.cholesky_update)(r, a[0])) == CHOLUPD[host]


@pytest.mark.parametrize("kw", [dict(axis=1), dict(axis=0, ord=3), dict(axis=1, ord=0.5)])
def test_norm_is_compiled_as_jax(kw):
    # JAX's jnp.linalg.norm is a jitted function: eager digits are its compiled ones
    a = np.random.RandomState(3).randn(60, 70).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.linalg.norm(a, **kw)),
                                  np.asarray(jax.jit(lambda x: jnp.linalg.norm(x, **kw))(a)))
