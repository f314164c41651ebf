"""`lax.reshape(x, sizes, dimensions=...)` stages JAX's one `reshape` equation with its
`dimensions` param (not a transpose before a reshape): its values, derivative,
transpose, batching and printed source; `simplify` never forwards it as an identity;
and on an Explicit mesh JAX's sharding rule reads `dimensions` -- the types JAX 0.10.2
gives, or its ShardingTypeError (recorded on JAX 0.10.2 with 4 CPU devices)."""
import numpy as np
import pytest

import astjax as jax
from astjax import lax
from astjax import numpy as jnp
from astjax.sharding import AxisType, NamedSharding, PartitionSpec as P

X = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def _f(x):
    return lax.reshape(x, (2, 6), dimensions=(1, 0))


def test_one_equation_with_dimensions_and_numpy_values():
    eqns = jax.make_jaxpr(_f)(X).jaxpr.eqns
    assert [(e.primitive.name, e.params["dimensions"]) for e in eqns] == [("reshape", (1, 0))]
    want = X.T.reshape(2, 6)
    np.testing.assert_array_equal(jax.jit(_f)(X), want)
    np.testing.assert_array_equal(_f(X), want)
    # the identity permutation is dropped, as JAX drops it
    assert jax.make_jaxpr(lambda x: lax.reshape(x, (4, 3), (0, 1)))(X).eqns[0].params[
        "dimensions"] is None
    assert "lax.reshape(x, (2, 6), (1, 0))" in jax.source(_f, X)


def test_same_shape_permutation_is_not_an_identity():
    sq = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    np.testing.assert_array_equal(jax.jit(lambda x: lax.reshape(x, (3, 3), (1, 0)) * 2)(sq),
                                  sq.T * 2)


def test_derivatives_and_batching():
    w = np.arange(12.0, dtype=np.float32).reshape(2, 6) ** 2
    g = jax.grad(lambda x: (_f(x) * w).sum())(X)
    np.testing.assert_array_equal(g, w.reshape(4, 3).T)
    (t,) = jax.linear_transpose(_f, X)(w)
    np.testing.assert_array_equal(t, g)
    np.testing.assert_array_equal(jax.jvp(_f, (X,), (X + 1,))[1], (X + 1).T.reshape(2, 6))
    xs = np.stack([X, X + 1, X * 2])
    np.testing.assert_array_equal(jax.vmap(_f)(xs), np.stack([x.T.reshape(2, 6) for x in xs]))
    np.testing.assert_array_equal(jax.vmap(_f, in_axes=1)(np.moveaxis(xs, 0, 1)),
                                  np.stack([x.T.reshape(2, 6) for x in xs]))


def test_dimensions_not_a_permutation_is_jax_type_error():
    with pytest.raises(TypeError, match="must be a permutation of operand dimensions, got "
                       r"dimensions \(0, 0\) for shape \(3, 4\)"):
        lax.reshape(X, (4, 3), dimensions=(0, 0))
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        lax.reshape(X, (4, 3), dimensions=(1.0, 0))


# (operand shape, spec, new sizes, dimensions, JAX 0.10.2's result type or None: its
# "This reshape is not supported" ShardingTypeError)
EXPLICIT = [
    ((4, 6), P("X", None), (6, 4), (1, 0), None),
    ((4, 6), P("X", None), (2, 2, 6), (1, 0), None),
    ((4, 6), P("X", None), (4, 2, 3), (1, 0), "float32[4@X,2,3]"),
    ((4, 6), P("X", None), (24,), (1, 0), None),
    ((4, 6, 2), P("X", None, None), (4, 12), (0, 2, 1), "float32[4@X,12]"),
    ((4, 1, 6), P("X", None, None), (4, 6), (0, 2, 1), "float32[4@X,6]"),
    ((2, 4, 6), P(None, "X", "Y"), (4, 12), (1, 0, 2), None),
    # JAX's rule reads the operand's spec in its own order, whatever `dimensions` says
    # (astjax typed the transposed operand: P(None, 'X', None) here, a silent difference)
    ((1, 2, 2), P(None, None, "X"), (1, 2, 2), (0, 2, 1), "float32[1,2,2@X]"),
    ((2, 6), P("X", "Y"), (1, 6, 2), (1, 0), None),
]


@pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices (conftest.py)")
@pytest.mark.parametrize("shape,spec,new,dims,want", EXPLICIT)
def test_explicit_mesh_reads_dimensions_as_jax(shape, spec, new, dims, want):
    mesh = jax.make_mesh((2, 2), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    with jax.set_mesh(mesh):
        x = jax.device_put(x, NamedSharding(mesh, spec))
        f = jax.jit(lambda x: lax.reshape(x, new, dims))
        if want is None:
            with pytest.raises(jax.sharding.ShardingTypeError,
                               match=r"This reshape is not supported.*Got operand type: "):
                f(x)
            return
        y = f(x)
        assert str(jax.typeof(y)) == want
        np.testing.assert_array_equal(np.asarray(y),
                                      np.transpose(np.asarray(x), dims).reshape(new))


def test_fortran_order_is_jax_one_reshape_with_dimensions():
    """`jnp.reshape(order='F')` / `ravel(order='F')`: JAX's reshape of the reversed axes
    (its `dimensions`) then `.T`, not a transpose before the reshape."""
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    for f, eqns, want in [
            (lambda x: jnp.reshape(x, (4, 6), order="F"),
             [("reshape", (2, 1, 0)), ("transpose", None)], np.reshape(x, (4, 6), order="F")),
            (lambda x: jnp.ravel(x, order="F"), [("reshape", (2, 1, 0))], np.ravel(x, order="F")),
            (lambda x: x.reshape((6, 2, 2), order="F"),
             [("reshape", (2, 1, 0)), ("transpose", None)], x.reshape((6, 2, 2), order="F"))]:
        got = [(e.primitive.name, e.params.get("dimensions"))
               for e in jax.make_jaxpr(f)(x).jaxpr.eqns]
        assert got == eqns, got
        np.testing.assert_array_equal(jax.jit(f)(x), want)


# JAX 0.10.2 refuses each (ShardingTypeError); astjax used to transpose first and return
# a value laid out over the merged / split dimension
FORTRAN_REFUSED = [
    (P(None, "X"), lambda x: jnp.ravel(x, order="F")),
    (P(None, "Y"), lambda x: jnp.reshape(x, (4, 3, 2), order="F")),
    (P("X", None), lambda x: x.reshape((4, 2, 3), order="F")),
]


@pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices (conftest.py)")
@pytest.mark.parametrize("spec,f", FORTRAN_REFUSED)
def test_explicit_fortran_order_refused_as_jax(spec, f):
    mesh = jax.make_mesh((2, 2), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        x = jax.device_put(np.arange(24.0, dtype=np.float32).reshape(4, 6),
                           NamedSharding(mesh, spec))
        with pytest.raises(jax.sharding.ShardingTypeError, match="This reshape is not supported"):
            jax.jit(f)(x)
