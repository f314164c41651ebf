"""Differences the fuzzers found on the merged main (API fuzzer seeds 46050..48450), each
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


# (JAX 0.10.2's results: saturating where `initial` is an operand of JAX's jitted
# reduction -- eagerly, under an eager vmap, and for the nan* reductions, which are not
# inlined; the host's cast of the constant, folded, where a user's jit inlines sum / prod
# / max / min; the accumulator of sum / prod is 64-bit under x64)
_SATURATED = [0, 0, 2**63 - 1, -2**63, 2**64 - 1, 0, -3]
_FOLDED = {"sum": [2**64 - 1, 2**64 - 1, -2**63, -2**63, 0, -2**63, -3],
           "max": [65535, 2**64 - 1, -2**63, -2**63, 0, -2**31, -3]}


@pytest.mark.parametrize("wrap", ["eager", "jit", "vmap"])
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "nansum", "nanprod",
                                  "nanmax", "nanmin"])
def test_float_initial_of_an_int_reduction_converts_as_jax(wrap, name):
    # seed 46406: a float initial of an integer reduction; astjax folded it with NumPy's
    # wrap-around everywhere, then saturated it everywhere (JAX's jit folds it)
    fn = getattr(jnp, name)
    wrapper = {"eager": lambda f: f, "jit": astjax.jit, "vmap": astjax.vmap}[wrap]
    wants = _SATURATED
    if wrap == "jit" and not name.startswith("nan"):
        wants = _FOLDED["sum" if name in ("sum", "prod") else "max"]
    with astjax.enable_x64():
        for (dt, v), want in zip([("uint16", -1.0), ("uint64", -1.0), ("int64", 1e30),
                                  ("int64", -1e30), ("uint64", 1e30), ("int32", float("nan")),
                                  ("int16", -3.7)], wants):
            x = np.zeros((2, 0), dt)
            got = np.asarray(wrapper(lambda a: fn(a, axis=-1, initial=v))(x))
            assert got.tolist() == [want, want], (dt, v, got)
    x = np.zeros((2, 2, 0), np.uint16)
    f = lambda a: jnp.nanprod(a, axis=-1, keepdims=True, where=np.zeros((0,), bool),
                              initial=-1.0)
    with astjax.enable_x64():
        got = wrapper(f)(x)
        assert got.dtype == np.uint64 and np.asarray(got).tolist() == [[[0], [0]], [[0], [0]]]


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
def test_float_divmod_of_a_scalar_by_an_array(wrap):
    # seed 46890: divmod(-inf, int16 array) raised a ShapeError (a 0-d dividend met the
    # array-shaped select of the zero-divisor case)
    y = np.array([[3, -8, 6, 0]], np.int16)
    q, r = wrap(jnp.divmod)(-np.inf, y)
    assert q.shape == r.shape == (1, 4)
    np.testing.assert_array_equal(np.asarray(q), [[np.nan, np.nan, np.nan, -np.inf]])
    np.testing.assert_array_equal(np.asarray(r), np.full((1, 4), np.nan))
    np.testing.assert_array_equal(np.asarray(wrap(jnp.floor_divide)(2.5, y)),
                                  [[0.0, -1.0, 0.0, np.inf]])


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
def test_squareplus_of_integers_squares_in_their_dtype(wrap):
    # seed 47192: JAX squares an integer x in its own dtype (wrapping) before the sqrt;
    # astjax converted x to float first (squareplus(-2**63) was 0.0, JAX's -4.6e18)
    with astjax.enable_x64():
        got = np.asarray(wrap(astjax.nn.squareplus)(np.array([4, -2**63], np.int64)))
        np.testing.assert_allclose(got, [4.23606797749979, -4.611686018427388e18])
        got = np.asarray(wrap(astjax.nn.squareplus)(np.array([3, 200], np.uint8)))
        assert got.dtype == np.float32   # 200**2 wraps to 64 in uint8
        np.testing.assert_allclose(got, [3.3027756, 104.12311], rtol=1e-6)



@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_mixed_dtype_product_converts_each_operand_to_preferred_type(wrap):
    # seed 47714: with a preferred_element_type, JAX's matmul and dot keep each operand's
    # dtype and dot_general converts both to the preferred type first (a float operand
    # becomes an int32 before it multiplies); astjax promoted bf16 x f64 to f64, so
    # inf * 0.12 converted to int32's maximum where JAX gives 0
    import ml_dtypes
    a = np.array([[[-4.5, np.inf, 2.0]], [[1.0, 2.0, 3.7]]], ml_dtypes.bfloat16)
    b = np.array([[[-0.9], [0.12], [1.9]]] * 2)
    with astjax.enable_x64():
        mm = wrap(lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.int32))(a, b)
        d = wrap(lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.int32))(a, b)
    assert mm.dtype == d.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(mm).ravel(), [2, 3])
    # (jnp.dot of two 3-D arrays pairs every row of a with every matrix of b)
    assert set(np.asarray(d).ravel().tolist()) == {2, 3}


def test_norm_of_three_axes_or_a_bad_order_is_a_value_error():
    # seed 47929: linalg.norm(3-D, ord=2) (three axes) raised a ShapeError that is not
    # JAX's ValueError; so did an invalid matrix norm order
    x = np.ones((2, 2, 3), np.float32)
    with pytest.raises(ValueError):
        jnp.linalg.norm(x, ord=2)
    with pytest.raises(ValueError):
        astjax.jit(lambda x: jnp.linalg.norm(x, ord=2))(x)
    with pytest.raises(ValueError):
        jnp.linalg.norm(x[0], ord=3)


def test_arange_wraps_start_and_step_into_an_unsigned_dtype():
    # API fuzz seed 48438 (x64): JAX [65534] * 9 and [65534, 65535, 0, 1, 2]; astjax
    # raised NumPy's bare OverflowError
    with astjax.enable_x64(True):
        a = jnp.arange(-2, 2.5, 0.5, dtype=jnp.uint16)
        b = jnp.arange(-2, 3, dtype=jnp.uint16)
    assert a.dtype == np.uint16 and np.asarray(a).tolist() == [65534] * 9
    assert np.asarray(b).tolist() == [65534, 65535, 0, 1, 2]


def test_ravel_of_a_numpy_array_already_flat_is_a_canonical_array():
    # API fuzz seed 49075 (x64 off): JAX float32 Array; astjax returned the float64 NumPy
    # array itself (lax.reshape's no-op shortcut kept a host operand)
    out = jnp.ravel(np.array([-2.0, -0.0, 3.0], np.float64))
    assert isinstance(out, astjax.Array) and out.dtype == np.float32


def test_jnp_reshape_of_a_numpy_array_is_numpys_own_reshape():
    # JAX 0.10.2's jnp.reshape forwards to an ndarray's (or NumPy scalar's) own method:
    # NumPy in, NumPy out, dtype kept; every other function (ravel, atleast_2d, kron, ...)
    # and the Array method still give a canonical Array
    a = np.arange(6.0)
    out = jnp.reshape(a, (2, 3))
    assert type(out) is np.ndarray and out.dtype == np.float64 and out.shape == (2, 3)
    assert type(jnp.reshape(np.float64(2.0), (1,))) is np.ndarray
    for other in (jnp.ravel(a.reshape(2, 3)), jnp.atleast_2d(a), jnp.kron(a, a),
                  jnp.asarray(a).reshape(3, 2), astjax.jit(lambda: jnp.reshape(a, (3, 2)))()):
        assert isinstance(other, astjax.Array) and other.dtype == np.float32
