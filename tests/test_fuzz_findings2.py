"""Differences the fuzzers found on the merged main (API fuzzer seeds 46050..46650), each
pinned with JAX 0.10.2's answer written out (no JAX needed to run them)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_lcm_overflow_wraps_like_jax(wrap):
    # seed 46395: lcm(15, 13) in int8 is 195, which wraps to -61 in JAX (the absolute
    # values multiply); astjax took the absolute value after the multiply (61)
    x1 = np.array([15, -15, 12, 0, -4], np.int8)
    x2 = np.array([13, 13, -18, 5, 6], np.int8)
    got = np.asarray(wrap(jnp.lcm)(x1, x2))
    np.testing.assert_array_equal(got, np.array([-61, -61, 36, 0, 12], np.int8))


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "nansum", "nanprod",
                                  "nanmax", "nanmin"])
def test_float_initial_of_an_int_reduction_saturates(wrap, name):
    # seed 46406: JAX's reductions take `initial` as a traced operand, so XLA converts a
    # float initial to an integer dtype saturating (-1.0 -> 0 for unsigned, 1e30 -> the
    # maximum, NaN -> 0); astjax folded it with NumPy's wrap-around (-1.0 -> 2**64 - 1)
    fn = getattr(jnp, name)
    with astjax.enable_x64():
        for dt, v, want in [("uint16", -1.0, 0), ("uint64", -1.0, 0), ("int64", 1e30, 2**63 - 1),
                            ("int64", -1e30, -2**63), ("uint64", 1e30, 2**64 - 1),
                            ("int32", float("nan"), 0), ("int16", -3.7, -3)]:
            x = np.zeros((2, 0), dt)
            got = np.asarray(wrap(lambda a: fn(a, axis=-1, initial=v))(x))
            assert got.tolist() == [want, want], (dt, v, got)
    x = np.zeros((2, 2, 0), np.uint16)
    f = lambda a: jnp.nanprod(a, axis=-1, keepdims=True, where=np.zeros((0,), bool),
                              initial=-1.0)
    with astjax.enable_x64():
        got = wrap(f)(x)
        assert got.dtype == np.uint64 and np.asarray(got).tolist() == [[[0], [0]], [[0], [0]]]
