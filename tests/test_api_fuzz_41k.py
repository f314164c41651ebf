"""Differences the API fuzzer found on seeds 41351..41850 (`tests/fuzz/api_run.py`),
each pinned with JAX 0.10.2's answer written out (no JAX needed to run them)."""
import numpy as np
import pytest

import astjax
import astjax.nn as nn
from astjax.errors import AstjaxError
from astjax.scipy.special import gammainc, gammaincc


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_glu_of_an_odd_axis_raises_jaxs_assertion_error(wrap):
    # seeds 41351, 41558: JAX's `glu` checks the size with `assert`
    x = np.ones((2, 1, 3), np.float32)
    with pytest.raises(AssertionError) as e:
        wrap(lambda v: nn.glu(v, axis=-1))(x)
    assert isinstance(e.value, (AstjaxError, ValueError))
    assert "must be even" in str(e.value)


@pytest.mark.parametrize("x, dtype, weak", [
    (np.ones((2, 3), np.float64), np.float32, False),   # seed 41685: float64 -> float32
    (np.float64(2.0), np.float32, False),
    (2.0, np.float32, True),
    (3, np.int32, True),
    (np.ones(2, np.int16), np.int16, False)])
def test_identity_is_an_array_of_the_canonical_dtype(x, dtype, weak):
    out = nn.identity(x)
    assert isinstance(out, astjax.Array)
    assert out.dtype == dtype and astjax.typeof(out).weak_type == weak
    np.testing.assert_array_equal(np.asarray(out), np.asarray(x).astype(dtype))


def test_identity_of_an_array_is_that_array_and_a_list_is_a_type_error():
    a = astjax.numpy.ones(3)
    assert nn.identity(a) is a
    with pytest.raises(TypeError, match="identity requires ndarray or scalar arguments"):
        nn.identity([1.0, 2.0])


def test_gammainc_at_a_zero_is_one_for_every_positive_x():
    # seed 41390: JAX 0.10.2 gives NaN for 0 < x < 1 (its series' 0/0) and 1 from x = 1,
    # while its own gammaincc(0, x) is 0 for every x > 0; P(0, x) = 1 - Q(0, x) = 1 is
    # SciPy's value (docs/coming_from_jax.md, values that differ on purpose)
    x = np.array([0.5, 0.9, 1.0, 3.0, 1e30], np.float32)
    for a in (0.0, -0.0):
        np.testing.assert_array_equal(np.asarray(gammainc(a, x)), np.ones(5, np.float32))
        np.testing.assert_array_equal(np.asarray(astjax.vmap(gammainc, (None, 0))(a, x)),
                                      np.ones(5, np.float32))
    np.testing.assert_array_equal(np.asarray(gammaincc(0.0, x)), np.zeros(5, np.float32))


def test_scipy_softmax_defaults_to_all_axes_as_scipy_and_jax():
    # found by tests/fuzz/eager_compiles.py --check: axis=None normalized the last axis
    from astjax.scipy.special import log_softmax, softmax
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    e = np.exp(x - x.max())
    np.testing.assert_allclose(np.asarray(softmax(x)), e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(log_softmax(x)), np.log(e / e.sum()), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(softmax(x, axis=1)),
                               e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    with pytest.raises(TypeError):   # JAX's `axis` is keyword-only
        softmax(x, 1)


@pytest.mark.parametrize("mode", ["promise_in_bounds", "Clip", 3,
                                  astjax.lax.GatherScatterMode.CLIP])
def test_take_refuses_modes_other_than_jaxs_strings_before_the_empty_axis_check(mode):
    # seed 42643: an empty axis raised the IndexError first; JAX checks the mode first
    take = astjax.numpy.take
    with pytest.raises(ValueError, match="Invalid mode"):
        take(np.zeros(0, np.complex64), np.array([1, 0], np.int32), axis=-1, mode=mode)
    with pytest.raises(ValueError, match="Invalid mode"):
        astjax.jit(lambda a, i: take(a, i, mode=mode))(np.arange(4.0), np.array([1, 5]))
    with pytest.raises(NotImplementedError):
        take(np.zeros(0), np.array([1]), mode="raise")
    np.testing.assert_array_equal(np.asarray(take(np.arange(4.0), np.array([1, 5]), mode="wrap")),
                                  [1.0, 1.0])
