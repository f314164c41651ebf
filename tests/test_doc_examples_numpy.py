"""The `>>>` examples of JAX 0.10.2's jax.numpy docstrings that astjax printed
differently (tests/fuzz/doc_examples.py), each pinned to JAX's own output, stored as a
literal."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def test_c_string_directive_concatenates_2d_pieces_along_axis_0():
    assert repr(jnp.c_['0,2', [1, 2, 3], [4, 5, 6]]) == (
        "Array([[1],\n       [2],\n       [3],\n       [4],\n       [5],\n       [6]],"
        " dtype=int32)")
    assert jnp.r_['0,2', [1, 2, 3], [4, 5, 6]].shape == (2, 3)
    assert jnp.r_['r', [1, 2, 3]].shape == (1, 3)
    assert jnp.c_[jnp.array([1, 2]), jnp.array([[3], [4]])].tolist() == [[1, 3], [2, 4]]
    with pytest.raises(ValueError, match="could not understand directive"):
        jnp.r_['x', [1]]
    with pytest.raises(ValueError, match="placed at the beginning"):
        jnp.r_[[1], 'r']


def test_r_imaginary_step_is_jnp_linspace_in_float32():
    assert repr(jnp.r_[-1:1:6j, 0, jnp.array([1, 2, 3])]) == (
        "Array([-1.        , -0.6       , -0.20000002,  0.20000003,  0.6       ,\n"
        "        1.        ,  0.        ,  1.        ,  2.        ,  3.        ],"
        "      dtype=float32)")


def test_ogrid_returns_a_list():
    g = jnp.ogrid[:2, :3]
    assert isinstance(g, list)
    assert [x.tolist() for x in g] == [[[0], [1]], [[0, 1, 2]]]
    assert repr(jnp.mgrid[0:1:4j]) == (
        "Array([0.        , 0.33333334, 0.6666667 , 1.        ], dtype=float32)")


def test_repr_of_an_empty_array_shows_its_shape():
    assert repr(jnp.argwhere(1)) == "Array([], shape=(1, 0), dtype=int32)"
    assert repr(jnp.argwhere(0)) == "Array([], shape=(0, 0), dtype=int32)"
    assert repr(jnp.zeros((0,), jnp.int32)) == "Array([], shape=(0,), dtype=int32)"


def test_isscalar_follows_numpy_then_zero_dim_arrays():
    values = [1.0, 1 + 1j, jnp.array(1), jnp.int32(1), np.array(1.0), np.int32(1),
              jnp.array([1]), np.array([1]), None, [1], (), slice(10), "a"]
    assert [jnp.isscalar(v) for v in values] == [True, True, True, True, True, True,
                                                 False, False, False, False, False, False,
                                                 True]


@pytest.mark.parametrize("a, b, want", [
    ("uint8", int, "uint8"), (int, "uint8", "uint8"), (int, int, "int64"),
    (int, float, "float64"), ("float16", float, "float16"), ("int8", complex, "complex128"),
    ("bool", int, "int64"), (float, "int32", "float64"), ("uint64", "int8", "float64"),
    (bool, int, "int64"), (float, complex, "complex128"), ("bfloat16", float, "bfloat16"),
    ("float16", complex, "complex64"), ("uint32", int, "uint32"), ("int32", "float32", "float32")])
def test_promote_types_python_types_are_weak(a, b, want):
    assert jnp.promote_types(a, b) == np.dtype(want)


def test_size_over_a_tuple_of_axes():
    y = jnp.zeros((2, 3, 4))
    assert (jnp.size(y, axis=(1,)), jnp.size(y, axis=(0, 2)), jnp.size(y, axis=-1),
            jnp.size(y, axis=()), jnp.size(3.0, axis=())) == (3, 8, 4, 1, 1)
    with pytest.raises(ValueError):
        jnp.size(y, axis=(1, 1))


def test_delete_with_a_slice_and_lists_refused():
    a = jnp.array([4, 5, 6, 7, 8, 9])
    assert jnp.delete(a, slice(1, 4)).tolist() == [4, 8, 9]
    with pytest.raises(TypeError, match="delete requires ndarray or scalar arguments"):
        jnp.delete(a, [1, 2])


def test_polyadd_polysub_of_2d_stacks():
    x3 = jnp.array([[2, 3, 1]])
    x4 = jnp.array([[5, 7, 3], [8, 2, 6]])
    assert jnp.polyadd(x3, x4).tolist() == [[5, 7, 3], [10, 5, 7]]
    assert jnp.polysub(x3, x4).tolist() == [[-5, -7, -3], [-6, 1, -5]]
    x6 = jnp.array([[5, 7, 9], [8, 6, 4]])
    assert jnp.polyadd(x6, jnp.array([2])).tolist() == [[5, 7, 9], [10, 8, 6]]
    assert jnp.polyadd(jnp.array([2, 3]), jnp.array([5, 4, 1])).tolist() == [5, 6, 4]
    with pytest.raises(ValueError):
        jnp.polyadd(jnp.array([1, 3, 5]), x6)


def test_polydiv_trim_leading_zeros():
    q, r = jnp.polydiv(jnp.array([5., 7., 9.]), jnp.array([4., 1.]), trim_leading_zeros=True)
    assert (q.tolist(), r.tolist()) == ([1.25, 1.4375], [7.5625])
    q, r = jnp.polydiv(jnp.array([4., 8., 4.]), jnp.array([2., 2.]), trim_leading_zeros=True)
    assert (q.tolist(), r.shape) == ([2.0, 2.0], (0,))
    _, r = jnp.polydiv(jnp.array([5., 7., 9.]), jnp.array([4., 1.]))
    assert r.tolist() == [0.0, 0.0, 7.5625]


def test_polyint_constants_appended_then_divided():
    p = jnp.array([3., 2., 1.])
    assert jnp.polyint(p, k=4).tolist() == [1.0, 1.0, 1.0, 4.0]
    assert repr(jnp.polyint(p, m=2, k=3)) == (
        "Array([0.25      , 0.33333334, 0.5       , 3.        , 3.        ],      "
        "dtype=float32)")
    assert jnp.polyint(p, m=2, k=jnp.array([1., 2.])).tolist() == [0.25, np.float32(1 / 3), 0.5, 1., 2.]
    with pytest.raises(TypeError, match="polyint requires ndarray or scalar arguments"):
        jnp.polyint(p, m=2, k=[1, 2])
    with pytest.raises(ValueError, match="rank-1 array of length 1 or m"):
        jnp.polyint(p, m=2, k=jnp.ones(3))


def test_repeat_with_total_repeat_length_under_jit():
    a, repeats = jnp.array([[1, 2], [3, 4]]), jnp.array([2, 3])
    jit_repeat = astjax.jit(jnp.repeat, static_argnames=['axis', 'total_repeat_length'])
    assert jit_repeat(a, repeats, axis=1, total_repeat_length=5).tolist() == [
        [1, 1, 2, 2, 2], [3, 3, 4, 4, 4]]
    assert jit_repeat(a, repeats, axis=1, total_repeat_length=4).tolist() == [
        [1, 1, 2, 2], [3, 3, 4, 4]]
    assert jit_repeat(a, repeats, axis=1, total_repeat_length=7).tolist() == [
        [1, 1, 2, 2, 2, 2, 2], [3, 3, 4, 4, 4, 4, 4]]
    assert jit_repeat(a, jnp.array(2), axis=1, total_repeat_length=4).tolist() == [
        [1, 1, 2, 2], [3, 3, 4, 4]]
    # eager too: the last block runs on to the given length, as JAX's
    assert jnp.repeat(a, repeats, axis=0, total_repeat_length=6).tolist() == [
        [1, 2], [1, 2], [3, 4], [3, 4], [3, 4], [3, 4]]
    with pytest.raises(ValueError):
        jit_repeat(a, repeats, total_repeat_length=4)


def test_fromfunction_maps_the_function_over_scalars():
    def f(x):
        return (x + 1) * jnp.arange(3)
    assert repr(jnp.fromfunction(f, shape=(2,))) == (
        "Array([[0., 1., 2.],\n       [0., 2., 4.]], dtype=float32)")
    assert jnp.fromfunction(jnp.multiply, shape=(2, 3), dtype=int).tolist() == [
        [0, 0, 0], [0, 1, 2]]
    s, p = jnp.fromfunction(lambda x, y: (x + y, x * y), shape=(2, 2))
    assert (s.tolist(), p.tolist()) == ([[0., 1.], [1., 2.]], [[0., 0.], [0., 1.]])


def test_piecewise_condlist_array_and_last_condition_wins():
    x = jnp.array([-4, -3, -2, -1, 0, 1, 2, 3, 4])
    condlist = jnp.array([False, True, False])
    funclist = [lambda x: x * 0, lambda x: x * 10, lambda x: x * 100]
    assert jnp.piecewise(x, condlist, funclist).tolist() == [
        -40, -30, -20, -10, 0, 10, 20, 30, 40]
    assert jnp.piecewise(x, [x < 2, x > -2], [lambda x: x * 0 + 7, lambda x: x * 10]
                         ).tolist() == [7, 7, 7, -10, 0, 10, 20, 30, 40]
    assert jnp.piecewise(x, [x < -1, x > 1], [lambda x: 1 + x, lambda x: x - 1, 0]
                         ).tolist() == [-3, -2, -1, 0, 0, 0, 1, 2, 3]
    with pytest.raises(ValueError, match="either 1 or 2 functions"):
        jnp.piecewise(x, [x < 0], [lambda x: x * 2, lambda x: x * 3, 5])


def test_einsum_interleaved_sublists():
    x, y = jnp.arange(4), jnp.array([5, 4, 3, 2])
    assert repr(jnp.einsum(x, (0,), y, (0,))) == "Array(16, dtype=int32)"
    assert int(jnp.einsum(x, [0], y, [0], [])) == 16
    M, N = jnp.arange(6).reshape(2, 3), jnp.arange(12).reshape(3, 4)
    assert jnp.einsum(M, [0, 1], N, [1, 2], [2, 0]).shape == (4, 2)
    assert jnp.einsum(M, [Ellipsis, 1], x[:3], [1], [Ellipsis]).tolist() == [5, 14]
    # labels are ranked: 30 sorts after 2, so the implicit output is (2, 30)
    assert jnp.einsum(M, [30, 1], N, [1, 2]).tolist() == [[20, 56], [23, 68], [26, 80],
                                                          [29, 92]]
    assert jnp.einsum(M, ['i', 'j'], N, ['j', 'k'], ['k', 'i']).shape == (4, 2)


def test_partition_and_argpartition_in_jax_order():
    x = jnp.array([6, 8, 4, 3, 1, 9, 7, 5, 2, 3])
    assert jnp.partition(x, 4).tolist() == [1, 2, 3, 3, 4, 9, 8, 7, 6, 5]
    assert jnp.argpartition(x, 4).tolist() == [4, 8, 3, 9, 2, 0, 1, 5, 6, 7]
    assert jnp.partition(x, -3).tolist() == [1, 2, 3, 3, 4, 5, 6, 7, 9, 8]
    u = jnp.array([3, 0, 2, 5, 0], dtype=jnp.uint8)
    assert jnp.partition(u, 2).tolist() == [0, 0, 2, 5, 3]
    assert jnp.argpartition(u, 2).tolist() == [1, 4, 2, 0, 3]
    y = jnp.array([[4, 0, 3], [1, 2, 0]])
    assert jnp.argpartition(y, 0, axis=1).tolist() == [[1, 0, 2], [2, 0, 1]]
    assert jnp.partition(y, 0, axis=0).tolist() == [[1, 0, 0], [4, 2, 3]]

