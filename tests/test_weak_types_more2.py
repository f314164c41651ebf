"""Differences from JAX 0.10.2 that tests/fuzz/weak_sweep.py found (dtype, weak type,
values, error class), each a minimal regression. The expected values are JAX's, recorded
with real JAX (`.jaxenv`): (dtype, weak_type) pairs, values, or the bits of a result."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from jax_hosts import assert_one_of


def _sig(x):
    return str(x.dtype), bool(x.weak_type)


def _bits(x, view=np.uint32):
    return np.asarray(x).view(view).ravel().tolist()


def _same(x, dtype_weak, value):
    assert _sig(x) == dtype_weak
    np.testing.assert_array_equal(np.asarray(x), np.asarray(value))


# ---- full_like with an array fill value: cast to the template's dtype (strong), broadcast

def test_full_like_array_fill_value():
    _same(jnp.full_like(lax.full((2, 2), 0.5), lax.full((2, 2), 0.5)), ("float32", False),
          [[0.5, 0.5], [0.5, 0.5]])
    _same(jnp.full_like(jnp.ones((2, 2), jnp.int8), jnp.array([1.5, 2.5])), ("int8", False),
          [[1, 2], [1, 2]])
    f = astjax.jit(lambda a, b: jnp.full_like(a, b))
    _same(f(jnp.ones((2, 2)), jnp.arange(2)), ("float32", False), [[0, 1], [0, 1]])


# ---- polyval: a p of more axes is one polynomial per trailing index

def test_polyval_2d_coefficients():
    _same(jnp.polyval(jnp.ones((3, 2)), jnp.arange(4.).reshape(4, 1)), ("float32", False),
          [[1, 1], [3, 3], [7, 7], [13, 13]])
    _same(jnp.polyval(lax.full((3, 3), 0.5), lax.full((3, 3), 0.5)), ("float32", False),
          np.full((3, 3), 0.875))
    with pytest.raises(IndexError):     # (JAX's class for a 0-d p)
        jnp.polyval(2.0, 3.0)


# ---- select: conditions of any dtype (stacked into one dtype, then nonzero)

def test_select_non_bool_conditions():
    _same(jnp.select(jnp.arange(4, dtype=jnp.int8).reshape(2, 2),
                     jnp.ones((2, 2), jnp.float16)), ("float16", False), [1, 1])
    _same(jnp.select(lax.full((3, 3), 0.5), lax.full((3, 3), 0.5)), ("float32", True),
          [0.5, 0.5, 0.5])
    # the weak 1e-30 is stacked with a float16 condition: it becomes 0 (false)
    _same(jnp.select([1e-30, jnp.ones(2, jnp.float16)], [1., 2.], 7), ("float32", True),
          [2., 2.])


# ---- repeat: repeats of any shape (flattened), total_repeat_length, 0-d operands

def test_repeat_repeats_array_any_shape():
    x = jnp.arange(4, dtype=jnp.int8).reshape(2, 2)
    _same(jnp.repeat(x, x), ("int8", False), [1, 2, 2, 3, 3, 3])
    _same(jnp.repeat(jnp.arange(4).reshape(2, 2), jnp.array([[1, 2]]), axis=1),
          ("int32", False), [[0, 1, 1], [2, 3, 3]])


def test_repeat_total_repeat_length():
    r = jnp.array([1, 2, 0, 1])
    _same(jnp.repeat(jnp.arange(4), 2, total_repeat_length=5), ("int32", False),
          [0, 0, 1, 1, 2])
    _same(jnp.repeat(jnp.arange(4), r, total_repeat_length=6), ("int32", False),
          [0, 1, 1, 3, 3, 3])
    _same(jnp.repeat(jnp.arange(4), r, total_repeat_length=2), ("int32", False), [0, 1])
    _same(jnp.repeat(jnp.arange(4), jnp.array([1, -2, 3, 1]), total_repeat_length=6),
          ("int32", False), [0, 1, 2, 2, 2, 3])
    _same(jnp.repeat(3, 2, total_repeat_length=4), ("int32", True), [3, 3, 3, 3])
    f = astjax.jit(lambda a, r: jnp.repeat(a, r, total_repeat_length=6))
    _same(f(jnp.arange(4.), r.astype(jnp.int8)), ("float32", False), [0, 1, 1, 3, 3, 3])


def test_repeat_zero_d_with_axis():
    _same(jnp.repeat(jnp.float32(3), 2, axis=0), ("float32", False), [3, 3])
    _same(jnp.repeat(lax.full((), 2.), jnp.array([[2]]), axis=3), ("float32", True), [2, 2])
    with pytest.raises(ValueError):
        jnp.repeat(jnp.float32(3), jnp.array([2, 3]), axis=0)


# ---- roll: a staged shift; shifts and axes broadcast against each other

def test_roll_staged_shift():
    x = jnp.arange(9.).reshape(3, 3)
    _same(astjax.jit(lambda a, s: jnp.roll(a, s, axis=1))(x, 2), ("float32", False),
          [[1, 2, 0], [4, 5, 3], [7, 8, 6]])
    _same(astjax.jit(lambda a, s: jnp.roll(a, s, axis=(0, 1)))(x, jnp.array([1, -5])),
          ("float32", False), [[8, 6, 7], [2, 0, 1], [5, 3, 4]])
    _same(astjax.jit(lambda a, s: jnp.roll(a, s))(x, 0.5), ("float32", False), x)
    with pytest.raises(ValueError):
        jnp.roll(jnp.arange(4), jnp.array([[1]]))


def test_roll_broadcasts_shifts_and_axes():
    x = jnp.arange(9).reshape(3, 3)
    _same(jnp.roll(x, 1, axis=(0, 1)), ("int32", False), [[8, 6, 7], [2, 0, 1], [5, 3, 4]])
    _same(jnp.roll(x, (1, 1), axis=1), ("int32", False), [[1, 2, 0], [4, 5, 3], [7, 8, 6]])
    with pytest.raises(ValueError):
        jnp.roll(x, (1, 1, 1), axis=(0, 1))


# ---- trim_zeros of a Python scalar: an array; `trim` is not read for a 0-d one

def test_trim_zeros_scalar():
    _same(jnp.trim_zeros(0.5), ("float32", True), 0.5)
    _same(jnp.trim_zeros(0.5, 0.5), ("float32", True), 0.5)


# ---- convolutions: one XLA convolution, as JAX (its roundings; complex: Gauss's product
# on CPU / GPU); lax.conv_general_dilated of two weak operands is weak

_A = np.float32([0.1, -1.3, 2.7, 0.33, -0.71])
_V = np.float32([1.9, -0.37, 0.55])


def test_convolve_bits():
    assert _bits(jnp.convolve(_A, _V)) == [1044549468, 3223351983, 1085624287, 3213566672,
                                           1013169408, 1055092271, 3200774046]
    assert _bits(jnp.correlate(_A, _V, "full")) == [
        1029785519, 3208676114, 1074396136, 3226625638, 1083425214, 1063502690, 3215764488]


def test_complex_convolution_bits():
    ac = (_A + 1j * _A[::-1]).astype(np.complex64)
    vc = (_V - 0.3j * _V).astype(np.complex64)
    assert _bits(jnp.convolve(ac, vc)) == [
        3193690704, 3216242638, 3222232482, 1070737026, 1088529306, 1077590520, 3221532704,
        3225257875, 1059660710, 1074378646, 1046468782, 3210911846, 3200220397, 1043351578]
    assert _bits(lax.conv_general_dilated(ac[None, None], vc[None, None], (1,),
                                          [(2, 2)])) == [
        3179188480, 3201327693, 3206440382, 1059813380, 1074413625, 3206677952, 3227993400,
        3184416256, 1086989954, 1082719271, 1041032968, 3224471485, 3215286337, 1058553412]
    base = (np.arange(9).reshape(3, 3) % 5 + 1).astype(np.float64) / 4
    c = (base + 0.25j * base[::-1]).astype(np.complex64)
    # (the eigenvalues' last bits follow the host's XLA code: tests/jax_hosts.py)
    assert_one_of(_bits(jnp.poly(c)), {
        "epyc-a": [1065353216, 0, 3223322630, 3206545408, 1060306963, 1053294596, 1034551286,
                   1017774108],
        "epyc-b": [1065353216, 0, 3223322623, 3206545408, 1060306940, 1053294582, 1034551302,
                   1017774152]}, "jnp.poly of a complex matrix")


def test_conv_general_dilated_weak():
    out = lax.conv_general_dilated(lax.full((1, 1, 3), 0.5), lax.full((1, 1, 2), 0.5), (1,),
                                   [(1, 1)])
    _same(out, ("float32", True), [[[0.25, 0.5, 0.5, 0.25]]])
    out = lax.conv_general_dilated(lax.full((1, 1, 3), 0.5), jnp.ones((1, 1, 2)), (1,),
                                   [(1, 1)])
    assert _sig(out) == ("float32", False)


# ---- linspace: float16 / bfloat16 samples computed in their own dtype; a NaN step of
# fewer than two samples

def test_linspace_half_precision_bits():
    f16 = [13312, 13619, 13926, 14233, 14438, 14592, 14745, 14899, 15052, 15206, 15360]
    assert _bits(jnp.linspace(0.25, 1.0, 11, dtype=jnp.float16), np.uint16) == f16
    assert _bits(jnp.linspace(0.25, 1.0, 11, dtype=jnp.bfloat16), np.uint16) == [
        16000, 16038, 16077, 16116, 16141, 16160, 16180, 16198, 16218, 16236, 16256]
    base = (np.arange(9).reshape(3, 3) % 5 + 1).astype(np.float16) / 4
    assert _bits(jnp.histogramdd(jnp.asarray(base))[1][0], np.uint16) == f16


def test_linspace_step_of_one_sample():
    for num, endpoint in [(1, True), (0, True)]:
        out, step = jnp.linspace(jnp.zeros(2), 3., num, endpoint=endpoint, retstep=True)
        assert step.shape == () and np.isnan(np.asarray(step))
    _, step = jnp.linspace(jnp.zeros(2), 3., 1, endpoint=False, retstep=True)
    _same(step, ("float32", False), [3., 3.])


# ---- searchsorted 'scan' is JAX's bisection (its answer on unsorted input too);
# histograms clip their bin indices

def test_searchsorted_scan_unsorted():
    a = jnp.array([4., 5., 1., 7., 0.])
    q = jnp.array([1., 4., 2., 5., 0., 6.])
    _same(jnp.searchsorted(a, q), ("int32", False), [0, 3, 3, 3, 0, 3])
    _same(jnp.searchsorted(a, q, method="compare_all"), ("int32", False), [1, 2, 2, 3, 0, 4])
    _same(jnp.searchsorted(a[:3], q, side="right"), ("int32", False), [0, 1, 0, 3, 0, 3])
    with pytest.raises(ValueError, match="method"):
        jnp.searchsorted(a, q, method="foo")


def test_histograms_unsorted_edges():
    h, *_ = jnp.histogramdd(jnp.array([[1., 4.], [2., 1.]]),
                            jnp.array([[1., 2., 3.], [4., 5., 1.]]))
    _same(h, ("int32", False), [[1, 0], [0, 0]])
    h, _ = jnp.histogram(jnp.array([1., 4., 2., 1.]), jnp.array([4., 5., 1.]))
    _same(h, ("float32", False), [1., 2.])
    h, *_ = jnp.histogram2d(jnp.array([1., 4.]), jnp.array([2., 1.]),
                            [jnp.array([1., 2., 3.]), jnp.array([4., 5., 1.])])
    _same(h, ("int32", False), [[0, 0], [0, 0]])


# ---- found by the widened sweep (Python ints, NumPy scalars, dtype= / where= forms)

def test_windows_are_jax_float32_formulas():
    assert _bits(jnp.blackman(7)) == [2994733056, 1040522936, 1059145646, 1065353215,
                                      1059145645, 1040522927, 2994733056]
    assert _bits(jnp.hamming(6)) == [1034147596, 1053537097, 1063879302, 1063879301,
                                     1053537094, 1034147596]
    assert _bits(jnp.hanning(9)) == [0, 1041626650, 1056964608, 1062896250, 1065353216,
                                     1062896248, 1056964608, 1041626642, 0]
    assert _bits(jnp.bartlett(8)) == [0, 1049774372, 1058162980, 1062956471, 1062956471,
                                      1058162980, 1049774372, 0]
    assert _bits(jnp.kaiser(7, 3)) == [1045548369, 1057854686, 1063193013, 1065353216,
                                       1063193013, 1057854686, 1045548369]
    # a staged beta, as JAX takes it
    assert _bits(astjax.jit(lambda b: jnp.kaiser(3, b))(2.5)) == [1050386806, 1065353216,
                                                                   1050386806]
    _same(jnp.blackman(3.0), ("float32", False), jnp.blackman(3))


def test_isclose_integers_inexact():
    assert _sig(jnp.isclose(3, 3)) == ("bool", False)
    _same(jnp.isclose(2 ** 24 + 1, 2 ** 24), ("bool", False), True)   # (in float32)
    _same(jnp.isclose(jnp.int32(2 ** 31 - 1), jnp.int32(2 ** 31 - 2)), ("bool", False), True)


def test_nan_reductions_integer_dtype():
    x = jnp.array([[1.5, 2.7], [np.nan, 4.]])
    _same(jnp.nanmean(x, dtype=jnp.int32), ("int32", False), 2)
    _same(jnp.nanvar(x, dtype=jnp.int32), ("int32", False), 2)
    _same(jnp.nanvar(x, axis=0, dtype=jnp.int32), ("int32", False), [0, 1])
    with pytest.raises(TypeError):
        jnp.nanstd(jnp.ones((2, 2)), dtype=jnp.int32)
