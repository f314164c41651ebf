"""Examples from JAX 0.10.2's own docstrings (outside `jax.numpy`'s bulk) whose
outputs astjax once differed on (`tests/fuzz/doc_examples.py` finds them); JAX's
outputs are stored as literals."""
import collections
import subprocess
import sys

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.tree_util import flatten_one_level


def _same(got, want, dtype):
    got = np.asarray(got)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.asarray(want, dtype))


def test_bincount_counts_negative_values_in_bin_zero():
    x = jnp.array([-1, -1, 1, 3, 10])
    _same(jnp.bincount(x, length=5), [2, 1, 0, 1, 0], np.int32)
    _same(jnp.bincount(x), [2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1], np.int32)
    _same(jnp.bincount(x, weights=jnp.arange(5.0)), [1, 2, 0, 3, 0, 0, 0, 0, 0, 0, 4],
          np.float32)
    _same(jax.jit(lambda v: jnp.bincount(v, length=3))(x), [2, 1, 0], np.int32)


def test_toeplitz_diagonal_is_c0():
    c, r = jnp.array([1, 2, 3]), jnp.array([-1, -2, -3])
    _same(jax.scipy.linalg.toeplitz(c, r), [[1, -2, -3], [2, 1, -2], [3, 2, 1]], np.int32)
    _same(jax.scipy.linalg.toeplitz(jnp.array([[1, 2], [3, 4]]), jnp.array([9, 8, 7])),
          [[[1, 8, 7], [2, 1, 8]], [[3, 8, 7], [4, 3, 8]]], np.int32)
    _same(jax.scipy.linalg.toeplitz(jnp.array([1]), jnp.array([5, 6, 7])), [[1, 6, 7]],
          np.int32)


def test_signbit_reads_the_sign_bit_of_nan_and_zero():
    x = jnp.array([jnp.nan, -jnp.nan, jnp.inf, -jnp.inf])
    _same(jnp.signbit(x), [False, True, False, True], np.bool_)
    _same(jnp.signbit(jnp.array([-1.5, -0.0, 0.0, 1.5])), [True, True, False, False],
          np.bool_)
    _same(jnp.signbit(jnp.array([-0.0, 0.0], jnp.bfloat16)), [True, False], np.bool_)
    _same(jax.vmap(jnp.signbit)(jnp.array([-0.0, 1.0])), [True, False], np.bool_)


def test_dft_matrix_is_jax_bit_for_bit():
    # JAX computes it in complex64: the signs of the zero parts are its rounding's
    want = [[1 + 0j, 1 + 0j, 1 + 0j, 1 + 0j],
            [1 + 0j, complex(-0.0, -1), complex(-1, 0), complex(0, 1)],
            [1 + 0j, complex(-1, 0), complex(1, -0.0), complex(-1, 0)],
            [1 + 0j, complex(0, 1), complex(-1, 0), complex(-0.0, -1)]]
    got = np.asarray(jax.scipy.linalg.dft(4).round(3))
    assert got.dtype == np.complex64
    np.testing.assert_array_equal(got, np.asarray(want, np.complex64))
    assert (np.signbit(got.real).tolist(), np.signbit(got.imag).tolist()) == (
        np.signbit(np.real(want)).tolist(), np.signbit(np.imag(want)).tolist())


def test_sem_keepdims_and_compiled_rounding():
    x1 = jnp.array([[1, 2, 1, 3, 2, 1], [3, 1, 3, 2, 1, 3], [1, 2, 2, 3, 1, 2]])
    got = jax.scipy.stats.sem(x1, axis=1, keepdims=True)
    _same(got, [[0.3333333432674408], [0.40138646960258484], [0.3073181211948395]],
          np.float32)
    assert jax.scipy.stats.sem(x1, axis=None, keepdims=True).shape == (1, 1)
    nan = np.nan
    x2 = jnp.array([[1, 2, 3, nan, 4, 2], [4, 5, 4, 3, nan, 1], [7, nan, 8, 7, 9, nan]])
    _same(jax.scipy.stats.sem(x2, nan_policy="omit"),
          [1.7320507764816284, 1.4999998807907104, 1.5275251865386963, 1.9999998807907104,
           2.5, 0.4999999701976776], np.float32)
    with pytest.raises(TypeError, match="sem requires ndarray or scalar arguments"):
        jax.scipy.stats.sem([1.0, 2.0, 4.0])


def test_flatten_one_level_children_types():
    assert flatten_one_level({'a': [1, 2], 'b': {'c': 3}}) == (([1, 2], {'c': 3}),
                                                               ('a', 'b'))
    assert flatten_one_level((1, 2)) == ((1, 2), None)
    assert flatten_one_level(None) == ((), None)
    assert flatten_one_level([1, 2]) == ([1, 2], None)
    assert flatten_one_level(collections.OrderedDict(x=1)) == ([1], ('x',))


def test_jax_lax_linalg_is_importable_through_the_alias():
    code = ("import astjax; astjax.install_as_jax()\n"
            "from jax.lax.linalg import ormqr, qr\n"
            "import jax, jax.lax.linalg\n"
            "assert jax.lax.linalg.ormqr is ormqr and jax.lax.linalg.qr is qr\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.stdout.strip() == "ok", out.stderr


def test_gradient_takes_coordinate_arrays():
    def f(x):
        return jnp.sin(x) * jnp.exp(-x / 4)
    x = jnp.linspace(0, 5, 10)
    _same(jnp.gradient(f(x), x), [
        0.8262407779693604, 0.6109509468078613, 0.1774716079235077, -0.20031677186489105,
        -0.43067073822021484, -0.48517265915870667, -0.3912886679172516, -0.21116328239440918,
        -0.015895318239927292, 0.07687809318304062], np.float32)
    y = jnp.arange(10.0).reshape(2, 5) ** 2
    xs = jnp.array([0.0, 1.0, 3.0, 3.5, 7.0])
    np.testing.assert_allclose(jnp.gradient(y, xs, axis=1), np.gradient(y, xs, axis=1),
                               rtol=1e-6)
    with pytest.raises(TypeError, match="Invalid number of spacing arguments 3"):
        jnp.gradient(y, 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="Spacing arrays must have the same length"):
        jnp.gradient(y, xs[:3], axis=1)
    with pytest.raises(NotImplementedError, match="edge_order"):
        jnp.gradient(y, edge_order=1)


def test_lax_map_batch_size_stages_the_batches_and_the_rest(capsys):
    x = jnp.ones((10, 3, 4))

    def f(v):
        print('inner shape:', v.shape)
        return v + 1
    y = jax.lax.map(f, x, batch_size=3)
    assert y.shape == (10, 3, 4)
    _same(y, np.full((10, 3, 4), 2.0), np.float32)
    # JAX: `vmap(f)` staged for the scan over 3 batches of 3, then for the last row
    assert capsys.readouterr().out == "inner shape: (3, 4)\ninner shape: (3, 4)\n"
    d = {'a': jnp.arange(7.0), 'b': jnp.arange(14).reshape(7, 2)}
    for bs in (2, 3, 7, 10, 0):
        a, b = jax.lax.map(lambda t: (t['a'] * 2, t['b'].sum()), d, batch_size=bs)
        _same(a, np.arange(7.0) * 2, np.float32)
        _same(b, [1, 5, 9, 13, 17, 21, 25], np.int32)


def test_multi_dot_multiplies_in_the_cheapest_order():
    x, y, z = jnp.ones((200, 5)), jnp.ones((5, 100)), jnp.ones((100, 10))
    assert jax.jit(jnp.linalg.multi_dot).lower([x, y, z]).cost_analysis()['flops'] == 30000.0
    _same(jnp.linalg.multi_dot([x, y, z]), np.full((200, 10), 500.0), np.float32)
    v, w = jnp.arange(5.0), jnp.arange(10.0)
    want = np.arange(5.0) @ np.ones((5, 100)) @ np.ones((100, 10)) @ np.arange(10.0)
    _same(jnp.linalg.multi_dot([v, y, z, w]), want, np.float32)
    assert jnp.linalg.multi_dot([x, v]).shape == (200,)
    with pytest.raises(ValueError, match="at least two arrays"):
        jnp.linalg.multi_dot([x])
    with pytest.raises(ValueError, match="last dimension of each array must match"):
        jnp.linalg.multi_dot([x, z])


def test_inspect_array_sharding_in_a_jitted_function_under_a_one_device_mesh():
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec
    seen = []

    def f_(x):
        x = jnp.sin(x)
        jax.debug.inspect_array_sharding(x, callback=seen.append)
        return jnp.square(x)
    f = jax.jit(f_, in_shardings=PartitionSpec('dev'), out_shardings=PartitionSpec('dev'))
    mesh = Mesh(jax.devices()[:1], ('dev',))
    with jax.set_mesh(mesh):
        f.lower(jnp.arange(8, dtype=jnp.float32)).compile()
    assert seen == [NamedSharding(mesh, PartitionSpec())]
    assert repr(seen[0]) == ("NamedSharding(mesh=Mesh('dev': 1, axis_types=(Auto,)), "
                             "spec=P(), memory_kind=device)")


def test_stft_hann_window_rounds_as_jax():
    # JAX builds the hann window in float32 on the device: sin(pi/2)**2 is not 1 there
    x = jnp.array([1., 2., 3., 2., 1., 0., 1., 2.])
    _, _, zxx = jax.scipy.signal.stft(x, nperseg=4)
    bits = np.asarray(zxx).view(np.uint32)
    assert bits.tolist() == [
        [1065353216, 0, 1075838976, 0, 1065353216, 0, 1065353216, 0, 1056964607, 0],
        [3204448256, 1056964607, 3217031168, 0, 3204448256, 3204448255, 3204448256,
         1056964607, 0, 3204448255],
        [855638016, 0, 1056964609, 0, 855638016, 0, 855638016, 0, 3204448255, 0]]
    _, xr = jax.scipy.signal.istft(zxx)
    np.testing.assert_allclose(xr, x, rtol=1e-6, atol=1e-6)
