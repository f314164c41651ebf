"""`vmap`, `jit` and `grad` over `jax.experimental.sparse.BCOO` arguments and results:
a BCOO is mapped along one of its batch dimensions (JAX's vmappable BCOO), its shape
losing or gaining that axis. Expected layouts and values are real JAX 0.10.2's (the
same programs run with `import jax`); dense NumPy gives the same numbers."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import sparse
from astjax.errors import AstjaxError

RNG = np.random.RandomState(0)
X = (RNG.rand(3, 4, 5) * (RNG.rand(3, 4, 5) < 0.4)).astype(np.float32)
A = jnp.arange(24.).reshape(2, 3, 4) % 3 - 1


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def test_vmap_maps_a_batch_axis_in_and_out():
    B = sparse.BCOO.fromdense(A, n_batch=1)
    close(astjax.vmap(lambda s: s @ jnp.ones(4))(B), [[-1., 0., 1.], [-1., 0., 1.]])
    assert astjax.vmap(lambda s: s.todense())(B).shape == (2, 3, 4)
    s0 = astjax.vmap(lambda s: s.sum(0))(B)
    assert repr(s0) == "BCOO(float32[2, 4], nse=8, n_batch=1)"
    assert np.asarray(s0.indices[1, :, 0]).tolist() == [0, 2, 3, 1, 2, 0, 1, 3]
    close(s0.todense(), np.asarray(A).sum(1))
    doubled = astjax.vmap(lambda s: s * 2.)(B)
    assert repr(doubled) == "BCOO(float32[2, 3, 4], nse=8, n_batch=1)"
    assert doubled.indices_sorted and doubled.unique_indices
    close(doubled.todense(), A * 2)
    made = astjax.vmap(lambda x: sparse.BCOO.fromdense(x, nse=8))(A)
    assert repr(made) == "BCOO(float32[2, 3, 4], nse=8, n_batch=1)"
    assert made.indices_sorted and made.unique_indices
    assert np.asarray(made.indices).tolist() == np.asarray(B.indices).tolist()


def test_vmap_over_an_inner_batch_axis_and_nested():
    B2 = sparse.BCOO.fromdense(A, n_batch=2)
    assert repr(B2) == "BCOO(float32[2, 3, 4], nse=3, n_batch=2)"
    assert astjax.vmap(lambda s: s.todense(), in_axes=1)(B2).shape == (3, 2, 4)
    close(astjax.vmap(lambda s: s.todense(), in_axes=1)(B2), np.asarray(A).transpose(1, 0, 2))
    same = astjax.vmap(lambda s: s, in_axes=1, out_axes=1)(B2)
    assert repr(same) == "BCOO(float32[2, 3, 4], nse=3, n_batch=2)"
    close(same.todense(), A)
    nested = astjax.vmap(astjax.vmap(lambda s: s.todense() @ jnp.arange(4.)))(B2)
    close(nested, np.asarray(A) @ np.arange(4.))


def test_vmap_under_jit_and_jit_under_vmap():
    B = sparse.BCOO.fromdense(X, n_batch=1)
    assert B.nse == 12
    got = astjax.jit(astjax.vmap(lambda s, w: s.T @ w))(B, jnp.ones((3, 4)))
    close(got, X.sum(1))
    close(got[0, :2], [1.281837, 0.7354077])   # (JAX's)
    close(astjax.vmap(astjax.jit(lambda s: s.sum(0).todense()))(B), X.sum(1))


def test_mapping_a_non_batch_axis_raises_jax_value_error():
    for f in (lambda s: s.todense(), lambda s: s @ jnp.ones(4)):
        with pytest.raises(ValueError, match="must correspond to a batch dimension") as e:
            astjax.vmap(f)(sparse.BCOO.fromdense(A))
        assert isinstance(e.value, AstjaxError)


def test_grad_through_vmap_matches_jax_and_finite_differences():
    B = sparse.BCOO.fromdense(X, n_batch=1)
    v = jnp.arange(5.)

    def f(d):
        return (astjax.vmap(lambda s: s @ v)(sparse.BCOO((d, B.indices), shape=B.shape)) ** 2).sum()
    g = astjax.grad(f)(B.data)
    close(g[0, :4], [0., 8.088916, 24.266747, 32.355663], 1e-4)   # (JAX's)
    close(astjax.jit(astjax.grad(f))(B.data), g, 1e-4)
    d0 = np.asarray(B.data, np.float64)
    eps = 1e-3
    for i, j in [(0, 1), (1, 3), (2, 0), (2, 5)]:
        e = np.zeros_like(d0)
        e[i, j] = eps
        fd = (float(f(jnp.asarray(d0 + e, jnp.float32))) - float(f(jnp.asarray(d0 - e, jnp.float32)))) / (2 * eps)
        close(g[i, j], fd, 2e-2)

    def h(x):
        return astjax.vmap(lambda m: sparse.BCOO.fromdense(m, nse=12) @ v)(x).sum()
    close(astjax.grad(h)(X), np.where(X != 0, np.arange(5.), 0.))


def test_bcoo_is_a_pytree_for_tree_map_and_optimizer_updates():
    B = sparse.BCOO.fromdense(X, n_batch=1)
    scaled = astjax.tree_util.tree_map(
        lambda x: x * 3 if jnp.issubdtype(x.dtype, jnp.floating) else x, B)
    assert isinstance(scaled, sparse.BCOO) and scaled.shape == B.shape
    close(scaled.todense(), X * 3)
    assert astjax.tree_util.tree_structure(B) == astjax.tree_util.tree_structure(scaled)
    shapes = astjax.tree_util.tree_map(lambda x: x.shape, B)
    assert (shapes.data, shapes.indices) == ((3, 12), (3, 12, 2))
    # an optimizer-style step on data only: indices ride along unchanged
    params = {"w": B}
    grads = astjax.grad(lambda p: (p["w"] @ jnp.ones(5)).sum(), allow_int=True)(params)
    new = astjax.tree_util.tree_map(
        lambda p, g: p - 0.1 * g if jnp.issubdtype(p.dtype, jnp.floating) else p,
        params, grads)
    close(new["w"].data, np.where(np.asarray(B.indices[..., 0]) < 4, B.data - 0.1, B.data))


def test_an_out_axis_beyond_the_batch_axes_is_jaxs_value_error():
    # (it was a BCOO whose shape was guessed from its buffers: float32[8, 3, 4], wrong)
    A = np.arange(24.).reshape(2, 3, 4) * (np.arange(24).reshape(2, 3, 4) % 3 == 0)
    B = sparse.BCOO.fromdense(A, n_batch=1)
    with pytest.raises(ValueError, match="cannot add out_axis=1 for BCOO array with n_batch=0"):
        astjax.vmap(lambda s: s, out_axes=1)(B)
    same = astjax.vmap(lambda s: s, out_axes=0)(B)
    assert repr(same) == "BCOO(float32[2, 3, 4], nse=4, n_batch=1)"
    np.testing.assert_array_equal(same.todense(), A)


def test_a_tree_map_keeps_a_bcoos_shape_as_jax():
    # a BCOO's shape is its aux data: replacing its buffers does not change it
    B = sparse.BCOO.fromdense(np.eye(3, dtype=np.float32), n_batch=1)
    C = astjax.tree_util.tree_map(lambda x: x[None], B)
    assert C.shape == (3, 3) and C.data.shape == (1, 3, 1)


class _Pair:
    """A user type vmap maps as a whole: a value and a count, the count not mapped."""

    def __init__(self, value, count):
        self.value, self.count = value, count

    shape = property(lambda self: self.value.shape)


astjax.tree_util.register_pytree_node(
    _Pair, lambda p: ((p.value,), p.count), lambda count, kids: _Pair(kids[0], count))


def test_register_vmappable_maps_a_user_type_with_its_rules():
    from astjax.interpreters import batching
    seen = []

    def to_elt(cont, size, val, axis):
        seen.append(("in", size, axis))
        return _Pair(cont(val.value, axis), val.count)

    def from_elt(cont, size, elt, axis):
        seen.append(("out", size, axis))
        return _Pair(cont(size, elt.value, axis), elt.count + 1)

    batching.register_vmappable(_Pair, int, int, to_elt, from_elt, None)
    try:
        p = _Pair(jnp.arange(6.).reshape(2, 3), 7)
        out = astjax.vmap(lambda q: _Pair(q.value * 2, q.count), in_axes=1, out_axes=1)(p)
        assert out.count == 8
        np.testing.assert_array_equal(out.value, np.arange(6.).reshape(2, 3) * 2)
        assert seen == [("in", 3, 1), ("out", 3, 1)]
    finally:
        batching.unregister_vmappable(_Pair)


def test_key_array_results_beside_a_registered_vmappable_type():
    # (with BCOO registered, results went through the vmappable path, which took a key
    # array for a vmappable value: KeyError PRNGKeyArray)
    ks = astjax.random.split(astjax.random.key(0), 4)
    out = astjax.vmap(lambda k: astjax.random.split(k))(ks)
    assert out.shape == (4, 2)
    want = np.stack([np.asarray(astjax.random.key_data(astjax.random.split(k))) for k in ks])
    np.testing.assert_array_equal(astjax.random.key_data(out), want)
    B = sparse.BCOO.fromdense(np.eye(3, dtype=np.float32), n_batch=1)
    k2, b2 = astjax.vmap(lambda k, s: (astjax.random.split(k, 3)[0], s), out_axes=(0, 0))(
        ks[:3], B)
    assert k2.shape == (3,) and repr(b2) == repr(B)


def test_extended_dtype_results_beside_a_registered_vmappable_type():
    # (the vmappable path rebuilt results of a user extended dtype from their staging
    # leaves: "tuple is not a valid array value"; only outputs holding a vmappable take it)
    from astjax import lax
    from test_extended_dtypes import mx
    em = lax.convert_element_type(np.arange(6, dtype=np.float32).reshape(2, 3), mx)
    out = astjax.vmap(lambda a: jnp.concatenate([a, a]))(em)
    assert (out.dtype, out.shape) == (mx, (2, 6))
    back = np.asarray(lax.convert_element_type(out, jnp.float32))
    np.testing.assert_array_equal(back, np.tile(np.arange(6.).reshape(2, 3), 2))


def test_register_vmappable_refuses_what_it_cannot_honour():
    from astjax.interpreters import batching
    with pytest.raises(TypeError, match="only int axis specs") as e:
        batching.register_vmappable(_Pair, tuple, int, None, None, None)
    assert isinstance(e.value, AstjaxError) and _Pair not in batching_vmappables()

    def made_anew(cont, size, val, axis):   # an array not from `cont`: refused, located
        return _Pair(cont(val.value, axis) * 2, val.count)

    def foreign(cont, size, val, axis):     # `cont` of something not among the leaves
        return _Pair(cont(jnp.ones((2, 3)), axis), val.count)

    p = _Pair(jnp.arange(6.).reshape(2, 3), 7)
    for to_elt, words in ((made_anew, "made arrays other than"), (foreign, "not one of")):
        batching.register_vmappable(_Pair, int, int, to_elt, None, None)
        try:
            with pytest.raises(TypeError, match=words) as e:
                astjax.vmap(lambda q: q.value)(p)
            assert isinstance(e.value, AstjaxError)
        finally:
            batching.unregister_vmappable(_Pair)


def batching_vmappables():
    from astjax.transforms.batching import vmappables
    return vmappables
