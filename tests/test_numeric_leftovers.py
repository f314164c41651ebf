"""Small numeric differences from JAX, pinned bit for bit: the expected values are
JAX 0.10.2's outputs on CPU, stored as literals."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from jax_hosts import assert_one_of

_A = np.array([1 + 2j, 3 - 1j, 0.5j, -2.25 + 1.75j, 0.1 + 0.7j], np.complex64)
_V = np.array([2 - 1j, 1 + 1j, 0.3 - 0.9j], np.complex64)


def _bits(x, dtype=np.float32):
    """(real, imag) pairs of a complex64 result, as float32 bits."""
    return np.asarray(x).view(dtype).ravel()


def _same_bits(got, want):
    np.testing.assert_array_equal(_bits(got).view(np.uint32),
                                  np.asarray(want, np.float32).view(np.uint32))


# ---- complex convolutions: three real convolutions (Gauss's product), as JAX on CPU ----

def test_complex_conv_general_dilated_has_jax_bits():
    out = jax.lax.conv_general_dilated(_A[None, None], _V[None, None], (1,), [(2, 2)])
    _same_bits(out, [2.0999999046325684, -0.30000001192092896, -1.0, -2.384185791015625e-07,
                     8.449999809265137, 5.149999618530273, 5.399999618530273,
                     -1.950000286102295, -2.8399999141693115, 0.6200000047683716,
                     -3.3500001430511475, 6.550000190734863, 0.9000000357627869,
                     1.2999999523162842])


def test_poly_of_a_matrix_has_jax_signed_zeros():
    # JAX's values on each host kind (tests/jax_hosts.py): the eigenvalues' rounding, and
    # so the imaginary parts' signs, follow the host's XLA code
    out = jnp.poly(jnp.array([[2, 1, 5], [3, 4, 7], [1, 3, 5]]))
    got = np.asarray(out).view(np.float32).tolist()
    host = assert_one_of(got, {
        "epyc-a": [1.0, 0.0, -11.0, -9.5367431640625e-07, 8.999998092651367,
                   -1.9073486328125e-06, -14.999996185302734, 4.76837158203125e-07],
        "epyc-b": [1.0, 0.0, -10.999995231628418, 9.5367431640625e-07, 8.999993324279785, 1.9073486328125e-06, -15.000003814697266, -4.76837158203125e-07]}, "jnp.poly")
    # (JAX prints [1.+0.j, -11.-0.j, 9.-0.j, -15.+0.j] once rounded on epyc-a)
    signs = {"epyc-a": [False, True, True, False], "epyc-b": [False, False, False, True]}[host]
    assert np.signbit(np.asarray(jnp.round(out)).imag).tolist() == signs


def test_complex_convolve_and_correlate_have_jax_bits():
    _same_bits(jnp.convolve(_A, _V), [4.0, 3.0, 4.0, -2.0, 6.599999904632568, 2.700000047683716,
                                      -3.25, 3.25, -2.6500000953674316, 0.949999988079071,
                                      0.2999999523162842, 3.3499999046325684,
                                      0.6599999666213989, 0.12000000476837158])
    _same_bits(jnp.correlate(_V, _A, mode="same"),
               [-5.450000286102295, -1.8500003814697266, -1.5999999046325684,
                -5.299999713897705, 5.25, 0.0, 1.5500000715255737, -1.149999976158142,
                4.800000190734863, -3.4000000953674316])



def test_conv_of_weak_operands_is_weak():
    w = jax.lax.broadcast(1.0, (1, 1, 3))   # weak float32, as JAX's
    out = jax.eval_shape(lambda: jax.lax.conv_general_dilated(w, w, (1,), [(1, 1)]))
    assert out.weak_type   # JAX: ShapeDtypeStruct(shape=(1, 1, 3), dtype=float32, weak_type=True)
    strong = jax.eval_shape(
        lambda: jax.lax.conv_general_dilated(w, jnp.ones((1, 1, 3)), (1,), [(1, 1)]))
    assert not strong.weak_type

# ---- searchsorted's methods: on an unsorted `a` each gives its own answer, as JAX's ----

def test_searchsorted_scan_is_a_binary_search():
    assert int(jnp.searchsorted(np.float32([0.5, -1.5, 1, 0, 1.5]), 0.0)) == 2   # JAX: 2


def test_searchsorted_methods_match_jax_on_unsorted_input_with_nans_and_signed_zeros():
    a = np.float32([3, np.nan, -0.0, 1, 0.0, 2, np.nan, -1])
    v = np.float32([0.0, -0.0, np.nan, 2, 5, -5, 1.5])
    bisect = [[0, 0, 6, 5, 6, 0, 5], [5, 5, 8, 6, 6, 0, 5]]
    counted = [[1, 1, 6, 4, 6, 0, 4], [3, 3, 8, 5, 6, 0, 4]]
    for method, want in (("scan", bisect), ("scan_unrolled", bisect), ("sort", counted),
                         ("compare_all", counted)):
        got = [jnp.searchsorted(a, v, side=s, method=method).tolist() for s in ("left", "right")]
        assert got == want, method


def test_searchsorted_rejects_an_unknown_method():
    with pytest.raises(ValueError, match="invalid argument method='bogus'"):
        jnp.searchsorted(np.float32([1, 2]), 1.0, method="bogus")


# ---- bool axes: JAX reads an axis with operator.index, so True is axis 1 ----

def test_bool_axes_are_integers():
    a = np.arange(6.0).reshape(2, 3)
    assert jnp.stack([a, a], axis=True).shape == (2, 2, 3)
    assert jnp.concatenate([a, a], axis=True).shape == (2, 6)
    assert jnp.sum(a, axis=(True,)).tolist() == [3.0, 12.0]
    assert jnp.expand_dims(a, True).shape == (2, 1, 3)
    assert jnp.cumsum(a, axis=True).tolist() == [[0.0, 1.0, 3.0], [3.0, 7.0, 12.0]]
