"""NumPy advanced indexing (`x[idx]`, `x.at[idx].set/add/mul/min/max`),
`take_along_axis`, and the sorting/searching/cumulative `jnp` functions, staged
under `jit` and run eagerly, against NumPy; JAX-only semantics (out-of-bounds
modes, NaN order, tie breaking) against values taken once from jax 0.10.2."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import ConcretizationError

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4, 5)).astype(np.float32)
I2 = np.array([[0, 2], [1, -1]])

INDEXES = [
    (np.array([0, 2, -1]),),
    (slice(None), np.array([0, 3])),
    (0, slice(None), np.array([1, 2])),
    (np.array([0, 1]), slice(None), np.array([1, 2])),
    (slice(None), np.array([0, 1]), None, np.array([1, 2])),
    (np.array([0, 1]), None, np.array([1, 2])),
    (I2, 1),
    (slice(None, None, -1), I2),
    (slice(1, None, 2), np.array([[0], [3]]), slice(4, 0, -2)),
    (Ellipsis, np.array([4, 0])),
    (None, np.array([1]), Ellipsis, 2),
    (np.array([True, False, True]),),
    (slice(1, 3), np.array([1, 2, 3]), np.array([[0], [1]])),
    (np.array([[[2]]]), slice(None), slice(2, 4)),
    (1, 2, np.array([0, 4, 4])),
    (slice(None), slice(None), np.array([], np.int32)),
]
IDS = [f"idx{i}" for i in range(len(INDEXES))]


@pytest.mark.parametrize("idx", INDEXES, ids=IDS)
def test_gather_index_matches_numpy(idx):
    want = X[idx]
    np.testing.assert_array_equal(np.asarray(jnp.asarray(X)[idx]), want)
    np.testing.assert_array_equal(np.asarray(astjax.jit(lambda x: x[idx])(X)), want)


def _np_update(x, idx, v, kind):
    e = x.copy()
    if kind == "set":
        e[idx] = v
    else:
        {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}[kind].at(
            e, idx, v)
    return e


@pytest.mark.parametrize("kind", ["set", "add", "mul", "min", "max"])
@pytest.mark.parametrize("idx", INDEXES, ids=IDS)
def test_scatter_index_matches_numpy(idx, kind):
    v = RNG.normal(size=X[idx].shape).astype(np.float32)
    want = _np_update(X, idx, v, kind)
    got = astjax.jit(lambda x, v: getattr(x.at[idx], kind)(v))(X, v)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_scatter_index_duplicates_accumulate():
    x = np.zeros(4, np.float32)
    idx = np.array([1, 1, 3, 1])
    got = astjax.jit(lambda x: x.at[idx].add(1.0))(x)
    np.testing.assert_array_equal(got, [0, 3, 0, 1])


def test_staged_indices():
    i = np.array([2, 0, -1], np.int32)
    np.testing.assert_array_equal(astjax.jit(lambda x, i: x[:, i, 1])(X, i), X[:, i, 1])
    np.testing.assert_array_equal(astjax.jit(lambda x, i: x[i, ::2])(X, i), X[i, ::2])
    np.testing.assert_allclose(astjax.jit(lambda x, i: x.at[1, i].add(1.0))(X, i),
                               _np_update(X, (1, i), 1.0, "add"))
    np.testing.assert_array_equal(astjax.jit(lambda x, i: x.at[i].set(0.0))(X, np.int32(-2)),
                                  _np_update(X, -2, 0.0, "set"))
    np.testing.assert_array_equal(astjax.jit(lambda x, i, j: x.at[i, :, j].mul(2.0))(
        X, np.int32(1), np.int32(3)), _np_update(X, (1, slice(None), 3), 2.0, "mul"))


def test_values_broadcast_and_cast():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = astjax.jit(lambda x: x.at[:, np.array([0, 2])].set(np.array([7.9, 8.2])))(x)
    want = x.copy()
    want[:, [0, 2]] = np.array([7, 8])
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(astjax.jit(lambda x: x.at[1].add(1))(x), x + (np.arange(3) == 1)[:, None])
    assert astjax.jit(lambda x: x.at[0].set(5))(np.ones(3, np.float16)).dtype == np.float16


def test_jax_out_of_bounds_semantics():
    x = np.arange(5.0, dtype=np.float32)
    # jax 0.10.2: x[i] clamps (PROMISE_IN_BOUNDS after wrapping negatives once)
    np.testing.assert_array_equal(jnp.asarray(x)[np.array([5, -7, 7])], [4.0, 0.0, 4.0])
    # .at[] drops out-of-bounds updates (FILL_OR_DROP)
    np.testing.assert_array_equal(astjax.jit(lambda x: x.at[np.array([5, -7, 1])].set(9.0))(x),
                                  [0, 9, 2, 3, 4])
    np.testing.assert_array_equal(astjax.jit(lambda x: x.at[7].set(9.0))(x), x)
    # take_along_axis fills with NaN
    np.testing.assert_array_equal(jnp.take_along_axis(x, np.array([5, 1]), 0), [np.nan, 1.0])
    dn = lax.ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(),
                                     scatter_dims_to_operand_dims=(0,))
    ones = np.ones(3, np.float32)
    np.testing.assert_array_equal(lax.scatter_add(x, np.array([3]), ones, dn), x)  # window dropped
    np.testing.assert_array_equal(lax.scatter_add(x, np.array([3]), ones, dn, mode="clip"),
                                  [0, 1, 3, 4, 5])


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis(axis):
    a = RNG.normal(size=(3, 4)).astype(np.float32)
    idx = np.argsort(a, axis=axis)
    f = astjax.jit(lambda a, i: jnp.take_along_axis(a, i, axis))
    np.testing.assert_array_equal(f(a, idx), np.take_along_axis(a, idx, axis))
    if axis == 1:
        bi = np.array([[0], [3], [-1]])
        np.testing.assert_array_equal(f(a, bi), np.take_along_axis(a, bi, 1))
        np.testing.assert_array_equal(f(a[:1], np.tile(bi, 1)), np.take_along_axis(
            np.broadcast_to(a[:1], (3, 4)), bi, 1))


SORT_X = np.array([[3.0, -0.0, np.nan, 0.0, -1.0], [np.inf, 2.0, 2.0, -np.inf, 1.0]], np.float32)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_sort_argsort(axis):
    f = astjax.jit(lambda x: (jnp.sort(x, axis=axis), jnp.argsort(x, axis=axis),
                              jnp.sort(x, axis=axis, descending=True)))
    s, a, d = f(SORT_X)
    np.testing.assert_array_equal(s, np.sort(SORT_X, axis=axis))
    np.testing.assert_array_equal(a, np.argsort(SORT_X, axis=axis, kind="stable"))
    ref = np.sort(SORT_X, axis=axis)
    np.testing.assert_array_equal(d, np.flip(ref, axis=-1 if axis is None else axis))


def test_argsort_descending_is_stable():
    # jax 0.10.2: jnp.argsort([1, 2, 2, 1], descending=True) == [1, 2, 0, 3]
    np.testing.assert_array_equal(jnp.argsort(np.array([1, 2, 2, 1]), descending=True),
                                  [1, 2, 0, 3])


def test_argmax_argmin():
    x = np.array([[1.0, np.nan, 3.0, np.nan], [5.0, 5.0, 1.0, 1.0]], np.float32)
    f = astjax.jit(lambda x: (jnp.argmax(x, axis=1), jnp.argmin(x, axis=1), jnp.argmax(x),
                              jnp.argmin(x, axis=0, keepdims=True)))
    a, b, c, d = f(x)
    np.testing.assert_array_equal(a, [1, 0])   # NaN counts as the max, first wins
    np.testing.assert_array_equal(b, [1, 2])   # ... and as the min
    assert int(c) == 1 and a.dtype == np.int32
    np.testing.assert_array_equal(d, [[0, 0, 1, 0]])
    np.testing.assert_array_equal(astjax.jit(lambda x: x.argmax(axis=0))(np.eye(3)), [0, 1, 2])


def test_cumulative():
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    f = astjax.jit(lambda x: (jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=0), jnp.cumsum(x)))
    a, b, c = f(x)
    np.testing.assert_allclose(a, np.cumsum(x, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, np.cumprod(x, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, np.cumsum(x), rtol=1e-5, atol=1e-6)
    assert jnp.cumsum(np.ones(3, bool)).dtype == np.int32
    assert jnp.cumsum(np.ones(3, np.int8)).dtype == np.int8  # as jax 0.10.2
    np.testing.assert_array_equal(jnp.cumulative_sum(np.array([1, 2, 3]), include_initial=True),
                                  [0, 1, 3, 6])
    np.testing.assert_allclose(lax.cumlogsumexp(x, 1, reverse=True),
                               np.flip(np.logaddexp.accumulate(np.flip(x, 1), 1), 1), rtol=1e-5)
    np.testing.assert_array_equal(lax.cummax(x, 0), np.maximum.accumulate(x, 0))


def test_nonzero_argwhere():
    x = np.array([[0, 1, 0], [2, 0, 3]])
    for got, want in zip(jnp.nonzero(x), np.nonzero(x)):
        np.testing.assert_array_equal(got, want)
    f = astjax.jit(lambda x: jnp.nonzero(x, size=4, fill_value=-1))
    r, c = f(x)
    np.testing.assert_array_equal(r, [0, 1, 1, -1])
    np.testing.assert_array_equal(c, [1, 0, 2, -1])
    r, c = astjax.jit(lambda x: jnp.nonzero(x, size=2))(x)  # extra nonzeros dropped
    np.testing.assert_array_equal(r, [0, 1])
    np.testing.assert_array_equal(c, [1, 0])
    np.testing.assert_array_equal(astjax.jit(lambda x: jnp.argwhere(x, size=3))(x),
                                  np.argwhere(x))
    np.testing.assert_array_equal(astjax.jit(lambda x: jnp.flatnonzero(x, size=3))(x),
                                  np.flatnonzero(x))
    with pytest.raises(ConcretizationError):
        astjax.jit(lambda x: jnp.nonzero(x))(x)


def test_lax_sort_variadic_and_top_k():
    k = np.array([3, 1, 2, 1], np.int32)
    v = np.array([10.0, 20.0, 30.0, 40.0], np.float32)
    sk, sv = lax.sort_key_val(k, v)
    np.testing.assert_array_equal(sk, [1, 1, 2, 3])
    np.testing.assert_array_equal(sv, [20, 40, 30, 10])
    vals, idx = astjax.jit(lambda x: lax.top_k(x, 3))(np.array([1.0, 5.0, 3.0, 5.0], np.float32))
    np.testing.assert_array_equal(vals, [5, 5, 3])
    np.testing.assert_array_equal(idx, [1, 3, 2])
    a, b = lax.sort((np.array([2, 1, 2, 1]), np.array([0, 1, 2, 3])), num_keys=2)
    np.testing.assert_array_equal(a, [1, 1, 2, 2])
    np.testing.assert_array_equal(b, [1, 3, 0, 2])


def test_lexsort():
    keys = [np.array([1, 0, 1, 0]), np.array([0, 0, 1, 1])]
    np.testing.assert_array_equal(jnp.lexsort(keys), np.lexsort(keys))


def test_gather_jaxpr_prints_like_jax():
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    text = str(astjax.make_jaxpr(lambda x, i: lax.gather(x, i, dn, (1, 4), mode="clip"))(
        np.zeros((3, 4), np.float32), np.zeros((2, 1), np.int32)))
    assert ("dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims="
            "(0,), start_index_map=(0,), operand_batching_dims=(), "
            "start_indices_batching_dims=())") in text
    assert "mode=GatherScatterMode.CLIP" in text
    assert "slice_sizes=(1, 4)" in text


def test_take_modes():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    i = np.array([[0, -1], [5, 2]])
    # jax 0.10.2: jnp.take defaults to mode='fill'
    np.testing.assert_array_equal(jnp.take(np.arange(5.0), np.array([5, 7])), [np.nan, np.nan])
    # ... and clamps negative indices as they are in mode='clip' (jax 0.10.2: -1 reads
    # element 0; NumPy's clip does the same)
    np.testing.assert_array_equal(jnp.take(x, i, axis=1, mode="clip"),
                                  np.take(x, [[0, 0], [3, 2]], axis=1))
    np.testing.assert_array_equal(jnp.take(x, i, axis=0, mode="wrap"),
                                  np.take(x, i, axis=0, mode="wrap"))
    np.testing.assert_array_equal(astjax.jit(lambda x: jnp.take(x, np.array([3, 0, -2])))(x),
                                  np.take(x, [3, 0, -2]))


def test_at_mode_clip():
    x = np.zeros(4, np.float32)
    np.testing.assert_array_equal(astjax.jit(lambda x: x.at[np.array([1, 9])].set(
        np.array([1.0, 2.0]), mode="clip"))(x), [0, 1, 0, 2])
    np.testing.assert_array_equal(astjax.jit(lambda x: x.at[np.array([1, 9])].add(1.0))(x),
                                  [0, 1, 0, 0])


# ---------------------------------------------- x.at[...] flags and keywords (R9)
def _jaxpr_params(f, *args):
    return str(astjax.make_jaxpr(f)(*args))


def test_basic_index_scatter_is_unique_and_sorted():
    # JAX sets both flags for int/slice indices; scatter_mul then has an update gradient
    text = _jaxpr_params(lambda x: x.at[1].multiply(2.0), np.ones(3, np.float32))
    assert "indices_are_sorted=True" in text and "unique_indices=True" in text
    text = _jaxpr_params(lambda x: x.at[np.array([0, 0])].add(1.0), np.ones(3, np.float32))
    assert "indices_are_sorted=False" in text and "unique_indices=False" in text
    # a reversed strided slice scatters unique points in decreasing order
    text = _jaxpr_params(lambda x: x.at[::-2].set(0.0), np.ones(5, np.float32))
    assert "indices_are_sorted=False" in text and "unique_indices=True" in text


def test_grad_of_at_multiply_wrt_updates():  # values from jax 0.10.2
    gx, gv = astjax.grad(lambda x, v: jnp.sum(x.at[1:3].multiply(v)), argnums=(0, 1))(
        jnp.arange(4.0), 2.0)
    np.testing.assert_array_equal(gx, [1.0, 2.0, 2.0, 1.0])
    assert float(gv) == 3.0
    gx, gv = astjax.grad(lambda x, v: jnp.sum(x.at[::-2].multiply(v)), argnums=(0, 1))(
        jnp.arange(4.0), jnp.array([2.0, 3.0]))
    np.testing.assert_array_equal(gx, [1.0, 3.0, 1.0, 2.0])
    np.testing.assert_array_equal(gv, [3.0, 1.0])
    gm, gv = astjax.grad(lambda m, v: jnp.sum(m.at[1, ::2].multiply(v)), argnums=(0, 1))(
        jnp.ones((2, 3)), jnp.array([2.0, 3.0]))
    np.testing.assert_array_equal(gm, [[1, 1, 1], [2, 1, 3]])
    np.testing.assert_array_equal(gv, [1.0, 1.0])


def test_at_keywords_pass_through():
    x = jnp.arange(5.0)
    text = _jaxpr_params(lambda x: x.at[np.array([3, 1])].add(1.0, unique_indices=True), x)
    assert "unique_indices=True" in text and "indices_are_sorted=False" in text
    np.testing.assert_array_equal(x.at[9].set(5.0, mode="clip"), [0, 1, 2, 3, 5])
    np.testing.assert_array_equal(x.at[np.array([1, 9])].subtract(1.0, mode="clip"),
                                  [0, 0, 2, 3, 3])
    assert float(x.at[7].get(mode="fill", fill_value=-1.0)) == -1.0
    np.testing.assert_array_equal(x.at[np.array([1, 9])].get(mode="fill", fill_value=-1.0),
                                  [1.0, -1.0])
    with pytest.raises(TypeError, match="unexpected keyword argument 'unique_index'"):
        x.at[1].set(2.0, unique_index=True)


def test_take_along_axis_keeps_mode_and_fill_value():  # values from jax 0.10.2
    x = jnp.arange(6.0).reshape(2, 3)
    i = np.array([[0, 5, 1]])
    np.testing.assert_array_equal(jnp.take_along_axis(x, i, axis=1, mode="clip"),
                                  [[0, 2, 1], [3, 5, 4]])
    np.testing.assert_array_equal(jnp.take_along_axis(x, i, axis=1, mode="fill",
                                                      fill_value=-7.0), [[0, -7, 1], [3, -7, 4]])
    np.testing.assert_array_equal(jnp.take_along_axis(x, i, axis=1), [[0, np.nan, 1],
                                                                      [3, np.nan, 4]])


@pytest.mark.parametrize("index,message", [
    (lambda x: jnp.ones(3)[np.array([True, False])], "in index 0: got (2,), expected [3]"),
    (lambda x: x[..., np.array([True, False])], "in index 1: got (2,), expected [3]"),
    (lambda x: x.at[np.array([True, True, False])].set(0.0), "got (3,), expected [2]"),
])
def test_boolean_mask_of_the_wrong_shape_raises(index, message):  # JAX: IndexError
    with pytest.raises(IndexError) as e:
        index(jnp.arange(6.0).reshape(2, 3))
    assert message in str(e.value) and isinstance(e.value, astjax.errors.AstjaxError)


def test_boolean_masks_of_the_right_shape():  # values from jax 0.10.2
    x = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(x[:, np.array([True, False, True])], [[0, 2], [3, 5]])
    np.testing.assert_array_equal(x[np.array([[True, False, True], [False, False, True]])],
                                  [0, 2, 5])
    np.testing.assert_array_equal(x[None, np.array([True, False])], [[[0, 1, 2]]])
    np.testing.assert_array_equal(x[np.array([True, False]), None,
                                    np.array([True, True, False])], [[0], [1]])


def test_pad_width_must_be_integral():  # JAX: TypeError
    with pytest.raises(TypeError, match="pad_width` must be of integral type"):
        jnp.pad(jnp.ones(3), 1.5)
    np.testing.assert_array_equal(jnp.pad(jnp.ones(3), np.int64(1)), [0, 1, 1, 1, 0])
