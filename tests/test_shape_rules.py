"""Abstract-eval rules check what the StableHLO verifier checks (issue 12, R12): a bad
shape or axis argument is a located astjax error of the builtin class JAX raises
(recorded from jax 0.10.2), never invalid StableHLO; and StableHLO that XLA still
rejects is an `InternalError` located at the equation that produced it."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core, lax
from astjax.codegen import runtime, stablehlo
from astjax.errors import ArgumentValueError, InternalError, ShapeError, ShapeValueError, SourceInfo
from astjax.primitives import concat_pad, structural

X = np.ones((2, 3), np.float32)

# (name, call, the builtin class JAX 0.10.2 raises)
BAD = [
    ("broadcast_in_dim_negative", lambda x: lax.broadcast_in_dim(x, (2, -3), (0, 1)), TypeError),
    ("broadcast_in_dim_scalar_negative", lambda x: lax.broadcast_in_dim(1.0, (2, -1), ()),
     TypeError),
    ("broadcast_in_dim_repeated", lambda x: lax.broadcast_in_dim(x, (2, 3), (0, 0)), TypeError),
    ("broadcast_in_dim_out_of_range", lambda x: lax.broadcast_in_dim(x, (2, 3), (0, 5)),
     TypeError),
    ("broadcast_negative", lambda x: lax.broadcast(x, (-1,)), TypeError),
    ("full_negative", lambda x: lax.full((2, -1), 0.0), TypeError),
    ("jnp_zeros_negative", lambda x: jnp.zeros((2, -1)), TypeError),
    ("reshape_negative", lambda x: lax.reshape(x, (-2, -3)), TypeError),
    ("pad_below_zero", lambda x: lax.pad(x, 0.0, ((-3, 0, 0), (0, 0, 0))), ValueError),
    ("pad_negative_interior", lambda x: lax.pad(x, 0.0, ((0, 0, -1), (0, 0, 0))), ValueError),
    ("pad_config_length", lambda x: lax.pad(x, 0.0, ((0, 0, 0),)), ValueError),
    ("iota_negative", lambda x: lax.iota(np.int32, -1), TypeError),
    ("broadcasted_iota_negative", lambda x: lax.broadcasted_iota(np.int32, (2, -1), 0), TypeError),
    ("broadcasted_iota_dimension", lambda x: lax.broadcasted_iota(np.int32, (2, 3), 2), ValueError),
    ("slice_negative_stride", lambda x: lax.slice(x, (0, 0), (2, 3), (-1, 1)), TypeError),
    ("slice_start_above_limit", lambda x: lax.slice(x, (2, 0), (1, 3)), TypeError),
    ("dynamic_slice_negative_size", lambda x: lax.dynamic_slice(x, (0, 0), (-1, 2)), TypeError),
    ("dynamic_slice_rank", lambda x: lax.dynamic_slice(x, (0,), (1,)), ValueError),
    ("reduce_repeated_axis", lambda x: lax.reduce_sum(x, (0, 0)), ValueError),
    ("reduce_max_repeated_axis", lambda x: lax.reduce_max(x, (1, 1)), ValueError),
    ("reduce_and_repeated_axis", lambda x: lax.reduce_and(x > 0, (0, 0)), ValueError),
    ("reduce_axis_out_of_range", lambda x: lax.reduce_sum(x, (2,)), ValueError),
    ("reduce_scalar_axis", lambda x: lax.reduce_sum(x[0, 0], (0,)), ValueError),
    ("transpose_repeated", lambda x: lax.transpose(x, (0, 0)), TypeError),
    ("transpose_short", lambda x: lax.transpose(x, (0,)), TypeError),
    ("rev_repeated", lambda x: lax.rev(x, (0, 0)), TypeError),
    ("rev_out_of_range", lambda x: lax.rev(x, (2,)), TypeError),
    ("squeeze_size_not_1", lambda x: lax.squeeze(x, (0,)), ValueError),
    ("squeeze_out_of_range", lambda x: lax.squeeze(x[:, :1], (3,)), ValueError),
    ("expand_dims_out_of_range", lambda x: lax.expand_dims(x, (4,)), ValueError),
    ("expand_dims_repeated", lambda x: lax.expand_dims(x, (0, 0)), ValueError),
    ("concatenate_out_of_range", lambda x: lax.concatenate([x, x], 2), TypeError),
    ("concatenate_empty", lambda x: lax.concatenate([], 0), ValueError),
    ("dot_general_repeated", lambda x: lax.dot_general(x, x, (((1, 1), (1, 1)), ((), ()))),
     TypeError),
    ("dot_general_out_of_range", lambda x: lax.dot_general(x, x, (((5,), (1,)), ((), ()))),
     TypeError),
    ("cumsum_out_of_range", lambda x: lax.cumsum(x, 2), ValueError),
    ("argmax_out_of_range", lambda x: lax.argmax(x, 2, np.int32), ValueError),
    ("argmax_empty", lambda x: lax.argmax(jnp.ones((0, 2)), 0, np.int32), ValueError),
    ("sort_out_of_range", lambda x: lax.sort(x, dimension=2), ValueError),
    ("sort_num_keys", lambda x: lax.sort((x, x), num_keys=3), ValueError),
    ("top_k_negative", lambda x: lax.top_k(x, -1), ValueError),
]


@pytest.mark.parametrize("name,call,cls", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_bad_shape_arguments_are_located_errors(name, call, cls, mode):
    fn = call if mode == "eager" else astjax.jit(call)
    with pytest.raises(cls) as e:
        fn(X)
    err = e.value
    # caught by the lax wrapper's argument check or by the primitive's shape rule
    assert isinstance(err, (ShapeError, ShapeValueError, ArgumentValueError)), type(err)
    assert err.loc is not None and err.loc.file == __file__
    assert err.hint


def test_broadcast_in_dim_accepts_any_order_of_dimensions():
    """JAX accepts broadcast_dimensions that are not increasing (a transposition);
    the NumPy reference, the lowering and the transpose rule agree."""
    x = np.arange(6.0).reshape(2, 3)
    w = np.arange(24.0).reshape(3, 4, 2)
    want = np.broadcast_to(x.T[:, None, :], (3, 4, 2))
    got = lax.broadcast_in_dim(x, (3, 4, 2), (2, 0))
    np.testing.assert_array_equal(np.asarray(got), want)
    ref = structural.broadcast_in_dim_p.impl(x, shape=(3, 4, 2), broadcast_dimensions=(2, 0))
    np.testing.assert_array_equal(ref, want)
    g = astjax.grad(lambda x: jnp.sum(lax.broadcast_in_dim(x, (3, 4, 2), (2, 0)) * w))(x)
    np.testing.assert_array_equal(np.asarray(g), w.sum(axis=1).T)
    g1 = astjax.grad(lambda x: jnp.sum(lax.broadcast_in_dim(x, (3, 4, 2), (2, 0)) * w))(x[:1])
    np.testing.assert_array_equal(np.asarray(g1), w.sum(axis=(1, 2))[None, :])

# ------------------------------------------------- rejected StableHLO is an internal bug


def test_stablehlo_rejected_by_xla_is_an_internal_error_at_the_equation():
    """An equation whose params slipped past its shape rule (built by hand here) makes
    text XLA refuses: the error names the primitive and the equation's source line."""
    aval = core.ShapedArray((2, 3), np.float32)
    x, out = core.Var(aval), core.Var(aval)
    here = SourceInfo(__file__, 7, 4, 10)
    eqn = core.Eqn(concat_pad.rev_p, [x], [out], {"dimensions": (0, 0)}, here)
    text = stablehlo.lower_module(core.Jaxpr([], [x], [out], [eqn]), "bad_rev")
    with pytest.raises(InternalError, match="`rev`") as e:
        runtime.Executable(text, [aval], [aval])
    assert isinstance(e.value, RuntimeError)
    assert e.value.loc is here
    assert "bug in astjax" in e.value.hint


@pytest.mark.parametrize("call", [
    lambda x: lax.dynamic_index_in_dim(x, 0, axis=2),
    lambda x: lax.dynamic_slice_in_dim(x, 0, 1, axis=2),
    lambda x: lax.dynamic_update_slice_in_dim(x, x[:1], 0, axis=2),
    lambda x: lax.slice_in_dim(x, 0, 1, axis=2),
    lambda x: lax.index_in_dim(x, 0, axis=-2),
])
def test_in_dim_axis_out_of_range_is_a_located_index_error(call):
    """JAX raises IndexError (from indexing its lists of starts and sizes)."""
    with pytest.raises(IndexError) as e:
        call(jnp.ones(3))
    assert isinstance(e.value, astjax.AstjaxError) and e.value.loc.file == __file__
    assert e.value.hint


def test_in_dim_negative_axis_counts_from_the_end():
    x = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(lax.dynamic_index_in_dim(x, 1, axis=-1)),
                                  [[1.0], [4.0]])
    np.testing.assert_array_equal(np.asarray(lax.slice_in_dim(x, 0, 1, axis=-2)), [[0, 1, 2]])
