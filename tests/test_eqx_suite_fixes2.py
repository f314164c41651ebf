"""Fixes found by running equinox's own test suite on astjax (its `test_make_jaxpr`,
`test_nontraceable`, `test_pformat`, ...), each a minimal case of JAX 0.10.2's
behaviour; none needs equinox."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.primitives.elementwise import BINARY

# -- lax's binary primitives broadcast size-1 dimensions themselves (JAX's
# `broadcasting_shape_rule`), so jnp promotes ranks only: `x[None] * x[:, None]` is
# two `broadcast_in_dim`s and a `mul`, as JAX prints it (equinox's test_make_jaxpr).

_F = np.array([[0.3], [1.7]], np.float32), np.array([[0.6, 1.1, 2.5]], np.float32)
_I = np.array([[3], [6]], np.int32), np.array([[1, 2, 5]], np.int32)
_FLOAT_OPS = ["add", "add_any", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2",
              "nextafter", "complex"]


def _operands(name):
    if name in _FLOAT_OPS:
        return _F
    if name == "polygamma":
        return np.array([[1.0], [2.0]], np.float32), _F[1]
    return _I


def _full(x, y):
    shape = np.broadcast_shapes(x.shape, y.shape)
    return jnp.broadcast_to(x, shape), jnp.broadcast_to(y, shape)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_primitive_broadcasts_size1_dims(name):
    """Each binary primitive on (2, 1) and (1, 3) operands: a (2, 3) result equal to
    the one on operands broadcast first, staged as one equation."""
    p = BINARY[name]
    x, y = _operands(name)
    np.testing.assert_array_equal(np.asarray(p.bind(x, y)), np.asarray(p.bind(*_full(x, y))))
    jaxpr = jax.make_jaxpr(lambda a, b: p.bind(a, b))(x, y).jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == [name]
    assert jaxpr.outvars[0].aval.shape == (2, 3)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "max", "min", "atan2",
                                  "rem", "add_any"])
def test_binary_primitive_size1_derivatives(name):
    """jvp, grad and vmap of a broadcasting binary primitive equal those of the same
    primitive on explicitly broadcast operands (the cotangents summed back to (2, 1)
    and (1, 3))."""
    p = BINARY[name]
    x, y = _F

    def f(a, b):
        return jnp.sum(jnp.sin(p.bind(a, b)))

    def g(a, b):
        return jnp.sum(jnp.sin(p.bind(*_full(a, b))))

    for argnums in (0, 1, (0, 1)):
        got, want = jax.grad(f, argnums)(x, y), jax.grad(g, argnums)(x, y)
        for u, v in zip(np.atleast_1d(got) if argnums != (0, 1) else got,
                        np.atleast_1d(want) if argnums != (0, 1) else want):
            np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-5, atol=1e-6)
    tx, ty = np.ones_like(x), np.full_like(y, 0.5)
    np.testing.assert_allclose(np.asarray(jax.jvp(f, (x, y), (tx, ty))[1]),
                               np.asarray(jax.jvp(g, (x, y), (tx, ty))[1]), rtol=1e-5)
    xs = np.stack([x, 2 * x])
    for axes, args in (((0, None), (xs, y)), ((None, 0), (x, np.stack([y, y + 1]))),
                       ((0, 0), (xs, np.stack([y, y + 1])))):
        got = jax.vmap(lambda a, b: p.bind(a, b), in_axes=axes)(*args)
        want = jax.vmap(lambda a, b: p.bind(*_full(a, b)), in_axes=axes)(*args)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_binary_primitive_shape_errors_as_jax():
    """Sizes other than 1 that differ, or different ranks: JAX's TypeErrors."""
    with pytest.raises(TypeError, match="add got incompatible shapes for broadcasting: "
                                        r"\(2, 3\), \(2, 4\)\."):
        lax.add(jnp.ones((2, 3)), jnp.ones((2, 4)))
    with pytest.raises(TypeError, match="arrays must have the same number of dimensions"):
        lax.mul(jnp.ones((2, 3)), jnp.ones((3,)))


def test_jnp_binary_promotes_ranks_only():
    """`x[None] * x[:, None]` stages as JAX's: the operands keep their size-1
    dimensions (no reshape + broadcast of each), and different ranks are padded with
    leading 1s only."""
    def f(x):
        return x[None] * x[:, None]
    jaxpr = jax.make_jaxpr(f)(jnp.ones(2)).jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == ["broadcast_in_dim", "broadcast_in_dim",
                                                      "mul"]
    jaxpr = jax.make_jaxpr(jnp.add)(jnp.ones((2, 3)), jnp.ones(3)).jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == ["broadcast_in_dim", "add"]
    assert jaxpr.eqns[0].outvars[0].aval.shape == (1, 3)
    jaxpr = jax.make_jaxpr(jnp.add)(jnp.ones((2, 3)), jnp.ones((1, 3))).jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == ["add"]
    np.testing.assert_array_equal(np.asarray(f(jnp.arange(2.0))), [[0.0, 0.0], [0.0, 1.0]])


# -- host callbacks receive device Arrays, as JAX's `device_put` of their operands
# hands them over (equinox's `debug.backward_nan` prints `repr`s of them:
# "primals=Array(1., dtype=float32)", not NumPy's "array(1., ...)").

def test_callbacks_receive_arrays():
    """`debug.callback`, `pure_callback` and `io_callback`, staged or eager, call the
    function on `jax.Array`s."""
    from astjax.compat.experimental import io_callback
    seen = []

    def cb(v):
        seen.append(isinstance(v, jax.Array))
        return np.asarray(v)

    def f(x):
        jax.debug.callback(cb, x)
        y = jax.pure_callback(cb, jax.ShapeDtypeStruct((), jnp.float32), x)
        return y + io_callback(cb, jax.ShapeDtypeStruct((), jnp.float32), x)

    assert float(jax.jit(f)(jnp.float32(1.0))) == 2.0
    jax.effects_barrier()
    f(jnp.float32(1.0))
    jax.effects_barrier()
    assert seen == [True] * 6


def test_debug_print_formats_arrays(capfd):
    """`jax.debug.print` formats its operands as Arrays: an object whose `__repr__`
    shows a leaf prints JAX's `Array(...)` repr."""
    class R:
        def __init__(self, x):
            self.x = x

        def __repr__(self):
            return repr(self.x)

    jax.tree_util.register_pytree_node(R, lambda r: ((r.x,), None), lambda _, c: R(*c))

    @jax.jit
    def f(x):
        jax.debug.print("{x}", x=R(x))
        return x

    capfd.readouterr()
    f(jnp.float32(1.0))
    jax.effects_barrier()
    jax.debug.print("{}", R(jnp.float32(2.0)))
    assert capfd.readouterr()[0] == ("Array(1., dtype=float32)\n"
                                     "Array(2., dtype=float32)\n")


def test_vmap_of_binary_primitive_as_jax():
    """`vmap` of a binary primitive is JAX's `broadcast_batcher`: an unbatched operand
    gains a leading size-1 dimension (the primitive broadcasts it) and batch dimensions
    that disagree move to the front, the result batched at 0."""
    def eqns(f, *args, in_axes):
        jaxpr = jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args).jaxpr
        return [(e.primitive.name, e.outvars[0].aval.shape) for e in jaxpr.eqns]

    x, y = jnp.ones((4, 3)), jnp.ones(3)
    assert eqns(jnp.add, x, y, in_axes=(0, None)) == [("broadcast_in_dim", (1, 3)),
                                                      ("add", (4, 3))]
    assert eqns(jnp.multiply, x.T, y, in_axes=(1, None)) == [
        ("transpose", (4, 3)), ("broadcast_in_dim", (1, 3)), ("mul", (4, 3))]
    assert eqns(jnp.multiply, x.T, x, in_axes=(1, 0)) == [("transpose", (4, 3)),
                                                          ("mul", (4, 3))]
    assert eqns(jnp.multiply, jnp.ones(4), y, in_axes=(0, None)) == [
        ("broadcast_in_dim", (1, 3)), ("broadcast_in_dim", (4, 1)), ("mul", (4, 3))]
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(jnp.subtract, in_axes=(1, None))(jnp.arange(6.0).reshape(3, 2),
                                                             jnp.arange(3.0))),
        np.arange(6.0).reshape(3, 2).T - np.arange(3.0))
