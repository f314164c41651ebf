"""Arrays of a user extended dtype (JAX's `ExtendedDType` with `_rules`, as flax's fp8
`fm32`) through creation, `where` / `stack` / `concatenate`, indexing and the structural
`lax` functions, eagerly and under `jit` / `vmap` / `grad`. The expected values and error
classes are JAX 0.10.2's (real `jax`, the same dtype and programs), stored as literals.

Where astjax differs on purpose: JAX 0.10.2's *eager* EArray has no `__getitem__`,
`reshape`, `.T` ... (NotImplementedError "Cannot call abstract method"), which work on
its traced arrays; astjax's work eagerly too, with the values JAX gives under `jit`.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from test_extended_dtypes import mx

X = np.array([1., -2., 3.], np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3)


def f32(v):
    return lax.convert_element_type(v, jnp.float32)


def _check(out, shape, values):
    assert (out.dtype, tuple(out.shape)) == (mx, shape)
    np.testing.assert_array_equal(np.asarray(f32(out)), values)


def e():
    return lax.convert_element_type(X, mx)


def em():
    return lax.convert_element_type(M, mx)


# (name, program, shape, values) as JAX 0.10.2 gives them
CASES = [
    ("zeros", lambda: jnp.zeros((2,), mx), (2,), [0., 0.]),
    ("ones", lambda: jnp.ones((2,), mx), (2,), [1., 1.]),
    ("full", lambda: jnp.full((2,), 5.0, mx), (2,), [5., 5.]),
    ("empty", lambda: jnp.empty((2,), mx), (2,), [0., 0.]),
    ("where", lambda: jnp.where(X > 0, e(), lax.convert_element_type(2 * X, mx)), (3,),
     [1., -4., 3.]),
    ("stack", lambda: jnp.stack([e(), e()]), (2, 3), [X, X]),
    ("stack_ax1", lambda: jnp.stack([e(), e()], axis=1), (3, 2), np.stack([X, X], 1)),
    ("concat", lambda: jnp.concatenate([e(), e()]), (6,), np.concatenate([X, X])),
    ("concat_ax1", lambda: jnp.concatenate([em(), em()], axis=1), (2, 6),
     np.concatenate([M, M], 1)),
    ("concat_none", lambda: jnp.concatenate([em(), em()], axis=None), (12,),
     np.concatenate([M.ravel()] * 2)),
    ("hstack", lambda: jnp.hstack([e(), e()]), (6,), np.concatenate([X, X])),
    ("vstack", lambda: jnp.vstack([e(), e()]), (2, 3), [X, X]),
    ("lax.concatenate", lambda: lax.concatenate([e(), e()], 0), (6,), np.concatenate([X, X])),
    ("lax.reshape", lambda: lax.reshape(em(), (6,)), (6,), M.ravel()),
    ("lax.reshape_dims", lambda: lax.reshape(em(), (6,), (1, 0)), (6,), M.T.ravel()),
    ("jnp.transpose", lambda: jnp.transpose(em()), (3, 2), M.T),
    ("lax.transpose", lambda: lax.transpose(em(), (1, 0)), (3, 2), M.T),
    ("swapaxes", lambda: jnp.swapaxes(em(), 0, 1), (3, 2), M.T),
    ("moveaxis", lambda: jnp.moveaxis(em(), 0, 1), (3, 2), M.T),
    ("dynamic_slice", lambda: lax.dynamic_slice(e(), (1,), (2,)), (2,), [-2., 3.]),
    ("dynamic_slice_2d", lambda: lax.dynamic_slice(em(), (1, 1), (1, 2)), (1, 2), [[4., 5.]]),
    ("select_n", lambda: lax.select_n(X > 0, e(), lax.convert_element_type(2 * X, mx)), (3,),
     [2., -2., 6.]),
    ("select_n_scalar", lambda: lax.select_n(True, e(), e()), (3,), X),
    ("select", lambda: lax.select(X > 0, e(), lax.convert_element_type(2 * X, mx)), (3,),
     [1., -4., 3.]),
    ("broadcast_to", lambda: jnp.broadcast_to(e(), (2, 3)), (2, 3), [X, X]),
    ("expand_dims", lambda: jnp.expand_dims(e(), 0), (1, 3), [X]),
    ("flip", lambda: jnp.flip(e()), (3,), X[::-1]),
    ("lax.slice", lambda: lax.slice(e(), (1,), (3,)), (2,), [-2., 3.]),
    ("lax.expand_dims", lambda: lax.expand_dims(e(), (0,)), (1, 3), [X]),
    ("lax.broadcast", lambda: lax.broadcast(e(), (2,)), (2, 3), [X, X]),
    ("lax.broadcast_in_dim", lambda: lax.broadcast_in_dim(e(), (2, 3), (1,)), (2, 3), [X, X]),
    ("lax.rev", lambda: lax.rev(e(), (0,)), (3,), X[::-1]),
    ("tile", lambda: jnp.tile(e(), 2), (6,), np.tile(X, 2)),
    ("jnp.copy", lambda: jnp.copy(e()), (3,), X),
    ("jit_where", lambda: astjax.jit(lambda p, a, b: jnp.where(p, a, b))(X > 0, e(), e()),
     (3,), X),
    ("jit_stack", lambda: astjax.jit(lambda a: jnp.stack([a, a]))(e()), (2, 3), [X, X]),
    ("jit_concat", lambda: astjax.jit(lambda a: jnp.concatenate([a, a]))(e()), (6,),
     np.concatenate([X, X])),
    ("jit_zeros", lambda: astjax.jit(lambda: jnp.zeros((2,), mx))(), (2,), [0., 0.]),
    ("jit_full", lambda: astjax.jit(lambda v: jnp.full((2,), v, mx))(4.0), (2,), [4., 4.]),
    ("jit_index", lambda: astjax.jit(lambda a, i: a[i])(e(), 2), (), 3.),
    ("jit_reshape", lambda: astjax.jit(lambda a: a.reshape(3, 2))(em()), (3, 2),
     M.reshape(3, 2)),
    ("jit_transpose", lambda: astjax.jit(lambda a: a.T)(em()), (3, 2), M.T),
    ("jit_dynamic_slice", lambda: astjax.jit(
        lambda a, i: lax.dynamic_slice(a, (i,), (2,)))(e(), 1), (2,), [-2., 3.]),
    ("jit_select_n", lambda: astjax.jit(lambda p, a, b: lax.select_n(p, a, b))(X > 0, e(), e()),
     (3,), X),
    ("vmap_concat", lambda: astjax.vmap(lambda a: jnp.concatenate([a, a]))(em()), (2, 6),
     np.concatenate([M, M], 1)),
    ("vmap_index", lambda: astjax.vmap(lambda a: a[1])(em()), (2,), [1., 4.]),
    ("vmap_index_batched", lambda: astjax.vmap(lambda a, i: a[i])(em(), jnp.array([0, 2])),
     (2,), [0., 5.]),
    ("vmap_reshape", lambda: astjax.vmap(lambda a: a.reshape(3, 1))(em()), (2, 3, 1),
     M.reshape(2, 3, 1)),
    ("vmap_transpose", lambda: astjax.vmap(lambda a: a[:, None].T)(em()), (2, 1, 3),
     M.reshape(2, 1, 3)),
    ("vmap_dynamic_slice", lambda: astjax.vmap(lambda a, i: lax.dynamic_slice(a, (i,), (2,)))(
        em(), jnp.array([0, 1])), (2, 2), [[0., 1.], [4., 5.]]),
    ("vmap_select_n", lambda: astjax.vmap(lambda p, a: lax.select_n(p, a, a))(X > 0, e()),
     (3,), X),
    ("vmap_zeros", lambda: astjax.vmap(lambda v: jnp.zeros((2,), mx))(X), (3, 2),
     np.zeros((3, 2))),
    ("vmap_full", lambda: astjax.vmap(lambda v: jnp.full((2,), v, mx))(X), (3, 2),
     np.stack([X, X], 1)),
]


@pytest.mark.parametrize("prog, shape, values", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_as_jax(prog, shape, values):
    _check(prog(), shape, values)


@pytest.mark.parametrize("prog, values", [
    # the data converted back inside the transformation: a pass re-binding the structural
    # equation types its output as the representation (JAX's values)
    (lambda: astjax.vmap(lambda a: f32(a.reshape(3, 1)))(em()), M.reshape(2, 3, 1)),
    (lambda: astjax.vmap(lambda a: f32(lax.select_n(True, a[::-1], a)))(em()), M),
    (lambda: astjax.vmap(astjax.jit(lambda a: f32(a[1:])))(em()), M[:, 1:]),
    (lambda: astjax.jit(lambda a: f32(astjax.jit(lambda b: b.reshape(3, 2))(a)))(em()),
     M.reshape(3, 2)),
    (lambda: astjax.jit(lambda a: lax.scan(lambda c, r: (c, f32(r[::-1])), 0., a)[1])(em()),
     M[:, ::-1]),
    (lambda: astjax.jit(lambda p, a: f32(lax.cond(p, lambda: a.T, lambda: a.T[::-1])))(
        True, em()), M.T),
])
def test_converted_back_inside_transformations(prog, values):
    np.testing.assert_array_equal(np.asarray(prog()), values)


def test_errors_as_jaxs():
    with pytest.raises(ValueError, match="is not a valid dtype for JAX type promotion"):
        jnp.where(X > 0, e(), X)
    with pytest.raises(ValueError, match="is not a valid dtype for JAX type promotion"):
        jnp.where(X > 0, e(), 0.0)
    with pytest.raises(ValueError, match="is not a valid dtype for JAX type promotion"):
        jnp.stack([e(), X])
    with pytest.raises(ValueError, match="is not a valid dtype for JAX type promotion"):
        jnp.concatenate([e(), X])
    with pytest.raises(TypeError):   # JAX: "Cannot determine dtype of MaxDType(...)"
        jnp.zeros_like(X, dtype=mx)
    with pytest.raises(IndexError):  # JAX: Too many indices (a 0-d element indexed)
        astjax.vmap(lambda p, a: jnp.where(p, a, a[0]))(X > 0, e())
    # no indexed updates of them in JAX (its NotImplementedError), eager or staged
    for prog in (lambda: e().at[1].set(e()[0]), lambda: e().at[1].get(),
                 lambda: astjax.jit(lambda a, b: a.at[0].set(b))(e(), e()[2])):
        with pytest.raises(NotImplementedError):
            prog()


def test_structural_derivatives_are_refused_not_summed():
    # a cotangent reaching the dtype through `stack` would add by `+` instead of the
    # rules' `max`: a located NotImplementedError (JAX 0.10.2 raises on every such
    # derivative, an AttributeError in its from_edtype transpose)
    def g(x):
        m = lax.convert_element_type(x, mx)
        return jnp.sum(f32(jnp.stack([m, m])) * jnp.arange(2.)[:, None])
    with pytest.raises(NotImplementedError, match="structural operation"):
        astjax.grad(g)(X)
    # straight through the conversion pair: the identity's derivative
    np.testing.assert_array_equal(astjax.grad(
        lambda v: jnp.sum(f32(jnp.full((2,), v, mx))))(3.0), 2.0)


def test_jaxpr_hides_the_dtype_parameter():
    text = str(astjax.make_jaxpr(lambda a: f32(a.reshape(3, 2)))(em()))
    assert "from_edtype[dtype=float32]" in text and "edtype=" not in text


def test_typed_keys_through_the_structural_lax_functions():
    # (JAX 0.10.2 gives key arrays of these shapes; astjax's were TypeErrors before)
    k = astjax.random.split(astjax.random.key(0), 6)
    d = np.asarray(astjax.random.key_data(k))
    cases = [
        (lax.reshape(k, (2, 3)), d.reshape(2, 3, 2)),
        (lax.transpose(k.reshape(2, 3), (1, 0)), d.reshape(2, 3, 2).transpose(1, 0, 2)),
        (lax.dynamic_slice(k, (1,), (2,)), d[1:3]),
        (lax.select_n(jnp.arange(6) > 2, k, lax.rev(k, (0,))), np.where(
            (np.arange(6) > 2)[:, None], d[::-1], d)),
        (lax.concatenate([k, k], 0), np.concatenate([d, d])),
        (lax.broadcast_in_dim(k, (2, 6), (1,)), np.stack([d, d])),
        (lax.slice(k, (1,), (3,)), d[1:3]),
        (lax.dynamic_update_slice(k, k[:2], (1,)), np.concatenate([d[:1], d[:2], d[3:]])),
        (jnp.moveaxis(k.reshape(2, 3), 0, 1), d.reshape(2, 3, 2).transpose(1, 0, 2)),
    ]
    for out, want in cases:
        assert out.dtype == k.dtype
        np.testing.assert_array_equal(np.asarray(astjax.random.key_data(out)), want)


def test_nonzero_of_them_is_jaxs_not_implemented():
    # (JAX's nonzero compares with 0: "Cannot call abstract method __ne__")
    for prog in (lambda: jnp.where(e()), lambda: jnp.nonzero(e())):
        with pytest.raises(NotImplementedError, match="extended dtype maxf32"):
            prog()
