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
