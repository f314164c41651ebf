"""Differences the API fuzzer (fresh seeds 51150..53150 and the new names' 62200..63000)
and issue 13's API gaps found on the merged main, each pinned with JAX 0.10.2's answer
written out: no JAX needed to run them."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

NAN = float("nan")
X1 = np.arange(1.0, 6.0, dtype=np.float32)
X2 = np.arange(12.0, dtype=np.float32).reshape(3, 4)
X2_UNCHANGED = X2.tolist()

# (x, index, method, args, mode, JAX 0.10.2's x.at[index].method(*args, mode=mode,
# wrap_negative_indices=False)): a negative index is out of bounds, so dropped (the
# updates' default), filled (get's mode 'fill'), or clamped to 0 (get's default, 'clip')
WRAP_FALSE = [
    (X1, -1, "get", (), None, 1.0),
    (X1, -1, "get", (), "fill", NAN),
    (X1, -6, "get", (), "clip", 1.0),
    (X1, -1, "set", (10.0,), None, [1.0, 2.0, 3.0, 4.0, 5.0]),
    (X1, -1, "set", (10.0,), "clip", [10.0, 2.0, 3.0, 4.0, 5.0]),
    (X1, -1, "set", (10.0,), "promise_in_bounds", [1.0, 2.0, 3.0, 4.0, 5.0]),
    (X1, np.int32(-1), "divide", (2.0,), "clip", [0.5, 2.0, 3.0, 4.0, 5.0]),
    (X1, np.array([-1, 0, 2]), "get", (), "fill", [NAN, 1.0, 3.0]),
    (X1, np.array([-1, 0, 2]), "get", (), None, [1.0, 1.0, 3.0]),
    (X1, np.array([-1, 0, 2]), "set", (10.0,), None, [10.0, 2.0, 10.0, 4.0, 5.0]),
    (X1, np.array([-7, 4]), "add", (10.0,), None, [1.0, 2.0, 3.0, 4.0, 15.0]),
    (X1, np.array([-7, 4]), "add", (10.0,), "clip", [11.0, 2.0, 3.0, 4.0, 15.0]),
    (X1, np.array([-7, 4]), "min", (0.0,), "drop", [1.0, 2.0, 3.0, 4.0, 0.0]),
    (X1, slice(-2, None), "add", (10.0,), None, [1.0, 2.0, 3.0, 14.0, 15.0]),
    (X2, (slice(None), -1), "get", (), None, [0.0, 4.0, 8.0]),
    (X2, (slice(None), -1), "get", (), "fill", [NAN, NAN, NAN]),
    (X2, (slice(None), -1), "add", (10.0,), None, X2_UNCHANGED),
    (X2, (slice(None), -1), "add", (10.0,), "clip",
     [[10.0, 1.0, 2.0, 3.0], [14.0, 5.0, 6.0, 7.0], [18.0, 9.0, 10.0, 11.0]]),
    (X2, (-1, slice(1, 3)), "min", (0.0,), "clip",
     [[0.0, 0.0, 0.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]),
    (X2, (-1, slice(1, 3)), "power", (2.0,), None, X2_UNCHANGED),
    (X2, (np.array([0, -1]), -2), "get", (), None, [0.0, 0.0]),
    (X2, (np.array([0, -1]), -2), "add", (10.0,), "clip",
     [[20.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]),
    (X1, np.array([-1, 2]), "apply", (jnp.negative,), None, [1.0, 2.0, -3.0, 4.0, 5.0]),
]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("x, idx, method, args, mode, want", WRAP_FALSE)
def test_at_without_wrapping_negative_indices(x, idx, method, args, mode, want, traced):
    # JAX 0.10.2's `wrap_negative_indices=False` on every `.at[]` method: astjax had no
    # such keyword (TypeError)
    kw = {"wrap_negative_indices": False} | ({} if mode is None else {"mode": mode})

    def f(x, i):
        return getattr(jnp.asarray(x).at[i if isinstance(idx, np.ndarray) else idx],
                       method)(*args, **kw)
    i = jnp.asarray(idx) if isinstance(idx, np.ndarray) else 0
    got = astjax.jit(f)(x, i) if traced else f(x, i)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want, np.float32))


def test_at_wraps_negative_indices_by_default():
    x = jnp.asarray(X1)
    assert float(x.at[-1].get(wrap_negative_indices=True)) == 5.0
    np.testing.assert_array_equal(np.asarray(x.at[np.array([-1])].add(1.0)),
                                  [1.0, 2.0, 3.0, 4.0, 6.0])


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_array_byteswap(wrap):
    # JAX 0.10.2's Array.byteswap (astjax's Array had none): each element's bytes reversed
    got = wrap(lambda v: v.byteswap())(jnp.arange(5, dtype="int32"))
    np.testing.assert_array_equal(np.asarray(got), [0, 16777216, 33554432, 50331648, 67108864])
    assert got.dtype == np.int32


def test_array_byteswap_dtypes():
    # JAX's values: complex swaps its parts separately, one-byte dtypes are copies
    c = jnp.array([1 + 2j], "complex64").byteswap()
    assert c.dtype == np.complex64
    np.testing.assert_array_equal(np.asarray(c).view(np.uint32), [32831, 64])
    b = jnp.array([True, False]).byteswap()
    assert b.dtype == np.bool_ and np.asarray(b).tolist() == [True, False]
    h = jnp.array(1.5, "float16").byteswap()
    assert h.shape == () and np.asarray(h).view(np.uint16) == 0x3e
    bf = jnp.array([1.5], "bfloat16").byteswap()
    assert float(bf[0]) == -2.984375


def test_array_contains_is_jaxs():
    # JAX's Array.__contains__: a one-dimensional array and a scalar query; astjax fell
    # back to iteration (`None in x` was False; a 2-D array: the truth-value error)
    x = jnp.arange(3.0)
    assert (2 in x) is True and (5.0 in x) is False
    with pytest.raises(TypeError, match="unsupported operand type"):
        None in x  # noqa: B015
    with pytest.raises(TypeError, match="unsupported operand type"):
        "a" in x  # noqa: B015
    with pytest.raises(TypeError):
        [1.0] in x  # noqa: B015
    with pytest.raises(ValueError, match="one-dimensional"):
        1.0 in jnp.ones((2, 2))  # noqa: B015
    with pytest.raises(ValueError, match="must be a scalar"):
        jnp.array([1.0, 2.0]) in x  # noqa: B015


def test_array_global_shards():
    x = jnp.arange(3.0)
    assert [s.index for s in x.global_shards] == [(slice(None),)]
    np.testing.assert_array_equal(np.asarray(x.global_shards[0].data), [0.0, 1.0, 2.0])


# JAX 0.10.2's values of the scipy.stats functions astjax lacked (float32)
XS = np.array([-1.0, 0.0, 0.25, 0.5, 0.999, 1.0, 2.0, 7.5, np.inf, np.nan], np.float32)
INF = float("inf")
STATS = [
    ("beta.cdf", (XS, 2.0, 3.0, -0.5, 2.0),
     [0.0, 0.26171887, 0.48120153, 0.68749982, 0.948937, 0.94921869, 1.0, 1.0, 1.0, NAN]),
    ("beta.logsf", (XS, 2.0, 3.0),
     [0.0, 0.0, -0.30343059, -1.16315019, -19.33776092, -INF, -INF, -INF, -INF, NAN]),
    ("gamma.cdf", (XS, 3.0, -0.5, 2.0),
     [0.0, 0.0021614956, 0.00665221, 0.01438767, 0.04043904, 0.04050542, 0.1315323,
      0.76189673, 1.0, NAN]),
    ("gamma.logsf", (XS, 0.5),
     [0.0, 0.0, -0.73501062, -1.14787388, -1.84828389, -1.84960604, -3.09003735,
      -9.13791561, -INF, NAN]),
    ("chi2.sf", (XS, 3.0, -0.5, 2.0),
     [1.0, 0.96914041, 0.94535708, 0.9188914, 0.86150384, 0.86138511, 0.74103898,
      0.26146403, 0.0, NAN]),
    ("chi2.logcdf", (XS, 1.0),
     [-INF, -INF, -0.95991659, -0.65296608, -0.38207021, -0.38171542, -0.1711432,
      -0.00618903, 0.0, NAN]),
    ("gennorm.cdf", (XS, 0.5),
     [0.36787957, 0.5, 0.54510194, 0.57913947, 0.6320284, 0.63212043, 0.70653194,
      0.87913084, 1.0, NAN]),
    ("poisson.cdf", (np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 10.0, 50.0, np.inf], np.float32), 3.0,
                     0.5),
     [0.0, 0.0, 0.04978704, 0.19914828, 0.42319003, 0.99889749, 1.0, NAN]),
    ("poisson.entropy", (np.array([0.0, 1e-3, 0.5, 1.0, 3.0, 9.99, 10.0, 37.0, 99.9, 100.0,
                                   1e4, 1e8, np.inf], np.float32),),
     [0.0, 0.00790859, 0.92763758, 1.30484188, 1.93146968, 2.56089139, 2.56140709,
      3.22209692, 3.72018719, 3.72069025, 6.02410078, 10.62927914, INF]),
    ("poisson.entropy", (5,), 2.20439434),
]


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit], ids=["eager", "jit"])
@pytest.mark.parametrize("name, args, want", STATS, ids=[s[0] for s in STATS])
def test_scipy_stats_functions_jax_has(name, args, want, wrap):
    # issue 13: poisson.entropy, poisson.cdf, gennorm.cdf and the cdf / logcdf / sf /
    # logsf of beta, gamma and chi2 were missing (AttributeError)
    from astjax.scipy import stats
    mod, fn = name.split(".")
    got = wrap(getattr(getattr(stats, mod), fn))(*args)
    assert got.dtype == np.float32 and got.shape == np.shape(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=3e-6, atol=1e-7)


def test_poisson_entropy_broadcasts_loc():
    # JAX's shape: mu's values broadcast against loc's shape (loc does not change them)
    from astjax.scipy import stats
    got = stats.poisson.entropy(np.float32([[0.0, 0.5, 3.0]]), np.zeros((4, 2, 1)))
    assert got.shape == (4, 2, 3)
    np.testing.assert_allclose(np.asarray(got)[3, 1], [0.0, 0.92763758, 1.93146968], rtol=3e-6)


@pytest.mark.parametrize("call, want_shape", [
    (lambda x: jnp.quantile(x, 0.5, keepdims=True), (1,)),
    (lambda x: jnp.percentile(x, 50.0, axis=(), keepdims=True), (1,)),
    (lambda x: jnp.nanquantile(x, jnp.array([0.2, 0.7]), keepdims=True), (2, 1)),
    (lambda x: jnp.quantile(x, 0.3, keepdims=True, method="inverted_cdf",
                            weights=jnp.float32(2.0)), (1,)),
    (lambda x: jnp.median(x, keepdims=True), (1,)),
    (lambda x: jnp.nanmedian(x, keepdims=False), ()),
])
def test_quantile_of_a_0d_array_with_keepdims(call, want_shape):
    # JAX 0.10.2 reduces a 0-d operand raveled to one axis and keeps it: (1,), where
    # NumPy (and astjax) gave ()
    got = call(jnp.asarray(np.float32(3.0)))
    assert got.shape == want_shape and got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got).ravel(), 3.0)


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit], ids=["eager", "jit"])
def test_at_apply_applies_once_per_repeated_index(wrap):
    # JAX 0.10.2's x.at[idx].apply(f) is a scatter_apply: an element named k times gets
    # f applied k times; astjax applied it once (x[0] was 2.0, not 8.0)
    x = jnp.arange(1.0, 6.0)
    got = wrap(lambda x, i: x.at[i].apply(lambda v: v * 2))(x, np.array([0, 0, 2, 0, -1]))
    np.testing.assert_array_equal(np.asarray(got), [8.0, 2.0, 6.0, 4.0, 10.0])
    clip = x.at[np.array([7, 9, 1])].apply(lambda v: v + 1, mode="clip")
    np.testing.assert_array_equal(np.asarray(clip), [1.0, 3.0, 3.0, 4.0, 7.0])
    rows = jnp.ones((3, 2)).at[np.array([1, 1]), :].apply(lambda v: v * 3)
    np.testing.assert_array_equal(np.asarray(rows), [[1.0, 1.0], [9.0, 9.0], [1.0, 1.0]])
    vm = astjax.vmap(lambda r: r.at[np.array([1, 1])].apply(lambda v: v * 2))(jnp.ones((2, 3)))
    np.testing.assert_array_equal(np.asarray(vm), [[1.0, 4.0, 1.0], [1.0, 4.0, 1.0]])


def test_vander_argument_errors_are_value_errors():
    # seed 62787: JAX 0.10.2 raises ValueError("x must be a one-dimensional array") for a
    # 2-D x (astjax: its TypeError-based ShapeError) and ValueError("N must be
    # nonnegative") for N < 0 (astjax: iota's shape TypeError)
    x2 = np.array([[-5, -8, -6]], np.int32)
    for f in (jnp.vander, astjax.jit(jnp.vander)):
        with pytest.raises(ValueError, match="one-dimensional"):
            f(x2)
    with pytest.raises(ValueError, match="N must be nonnegative"):
        jnp.vander(jnp.ones(3), N=-1)
    assert jnp.vander(jnp.ones(3), N=0).shape == (3, 0)


def test_scipy_stats_promote_integers_as_jax():
    # seeds 71151, 71670: JAX's promote_args_inexact makes int32 (and bool) float32 even
    # under x64, int64 float64; astjax made every integer the default float (float64)
    from astjax.scipy import stats
    with astjax.enable_x64():
        assert stats.poisson.entropy(np.array([-3, 6, 8], np.int32)).dtype == np.float32
        assert stats.norm.logpdf(np.array([1], np.int32)).dtype == np.float32
        assert stats.t.logpdf(np.int16(1), 3).dtype == np.float32
        assert stats.gamma.cdf(np.array([1], np.int64), 2).dtype == np.float64
        assert stats.norm.logpdf(1.0).dtype == np.float64
    # Python scalars only: a weak result, as JAX's
    assert astjax.typeof(stats.gamma.logpdf(2.0, 1.5)).weak_type
    assert not astjax.typeof(stats.norm.logpdf(np.float32(1.0))).weak_type


def test_cdf_gradient_below_the_support_is_zero_as_jax():
    # seed 73494: JAX clamps with lax.clamp, whose gradient outside the bounds is 0;
    # clip's was 0 * (infinite density at 0) = NaN
    from astjax.scipy import stats
    x = np.array([-0.478, 1.073, -5.35], np.float32)
    g = astjax.vmap(astjax.grad(stats.chi2.cdf), (0, None))(x, 1.0)
    np.testing.assert_allclose(np.asarray(g), [0.0, 0.22522224, 0.0], rtol=1e-5)
    gb = astjax.grad(lambda v: stats.beta.cdf(v, 0.5, 2.0))(-1.0)
    assert float(gb) == 0.0
