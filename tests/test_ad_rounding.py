"""Reverse mode rounds as JAX's: a value's cotangent contributions are summed in the
order the backward pass produces them, ((c1 + c2) + c3) + ..., as JAX's backward pass
sums them -- the slices' cotangents included (they are not summed apart and added
last), and only a split's parts joined into one concatenate (JAX's `split`). Recorded against jax 0.10.2: the shape of the sums in `make_jaxpr(grad(f))`
and the bits of `jit(grad(f))` on inputs where the order matters."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def slices_overlapping(x):
    return jnp.sum(x[:-1] * x[1:]) + jnp.sum(x * x) + jnp.sum(x[2:] * 3.0)


def slices_between_uses(x):
    return jnp.sum(x[0] * x + x[1] * x + x[2] * x)


def split_beside_slices(x):
    a, b, c, d = jnp.split(x, 4)
    return jnp.sum(x * jnp.sum(a * x[0] + b * x[1])) + jnp.sum(c * d * x[:2])


def _sum_tree(closed):
    """The output's cotangent as a tree of its `add_any`s: `padN` for a slice's
    transpose (N: its low padding), `concat` for a split's, `t` for any other term."""
    jaxpr = closed.jaxpr
    producer = {v: e for e in jaxpr.eqns for v in e.outvars}

    def show(a):
        e = producer.get(a)
        if e is not None and e.primitive.name == "add_any":
            return f"({show(e.invars[0])} + {show(e.invars[1])})"
        if e is not None and e.primitive.name == "pad":
            return f"pad{e.params['padding_config'][0][0]}"
        if e is not None and e.primitive.name == "concatenate":
            return "concat"
        return "t"
    return show(jaxpr.outvars[0])


# jax 0.10.2: the `add_any`s of make_jaxpr(grad(f))(x), x: f32[8]
JAX_SUM_TREES = {
    slices_overlapping: "((((pad2 + t) + t) + pad1) + pad0)",
    slices_between_uses: "(((((t + pad2) + t) + pad1) + t) + pad0)",
    # (the split's parts: one concatenate; x[0] and x[1]: a pad each, not joined)
    split_beside_slices: "((((pad0 + t) + pad1) + pad0) + concat)",
}


@pytest.mark.parametrize("f", list(JAX_SUM_TREES), ids=lambda f: f.__name__)
def test_cotangents_summed_in_jax_order(f):
    closed = astjax.make_jaxpr(astjax.grad(f))(np.ones(8, np.float32))
    assert _sum_tree(closed) == JAX_SUM_TREES[f]


# jax 0.10.2: jit(grad(f))(xs[row]), xs = RandomState(1).rand(200, 8) + 0.5 (float32),
# rows where another order of the sums rounds differently
JAX_BITS = {
    (slices_overlapping, 0): [0x40437ac6, 0x4076e5f5, 0x40c0bb7b, 0x40b80c94,
                              0x40b60598, 0x40b090f1, 0x40b9eef5, 0x40ac1383],
    (slices_overlapping, 1): [0x40354540, 0x407930ab, 0x40e1ff64, 0x40dfcf8e,
                              0x40df1c9a, 0x40df9e50, 0x40d34eba, 0x40bbc94c],
    (slices_between_uses, 1): [0x412acda0, 0x412acda1, 0x412acda0, 0x4036b4b2,
                               0x4036b4b2, 0x4036b4b2, 0x4036b4b2, 0x4036b4b2],
    (slices_between_uses, 3): [0x412d18d4, 0x412d18d5, 0x412d18d5, 0x4056c95c,
                               0x4056c95c, 0x4056c95c, 0x4056c95c, 0x4056c95c],
    (split_beside_slices, 3): [0x4212edf7, 0x41ca7cf3, 0x417c9f72, 0x417c9f72,
                               0x40c69104, 0x40d551bb, 0x40c9b706, 0x40e9b72e],
}


@pytest.mark.parametrize("f,row", list(JAX_BITS), ids=lambda v: getattr(v, "__name__", str(v)))
def test_grad_bits_as_jax(f, row):
    xs = np.random.RandomState(1).rand(200, 8).astype(np.float32) + 0.5
    got = np.asarray(astjax.jit(astjax.grad(f))(xs[row])).view(np.uint32)
    assert [hex(v) for v in got] == [hex(v) for v in JAX_BITS[f, row]]


# jax 0.10.2: jit(vmap(grad(jnp.tanh)))(x) -- JAX's tanh derivative (t + t y)(1 - y), not
# t (1 - y**2) (before: 625 of 4,000 normal draws rounded otherwise; RNN / GELU training)
TANH_X = [0xbe9afd62, 0x3e938028, 0xbfdaa605, 0x3dbb6d48, 0xbfe345ed, 0xbf32218b,
          0x3ea019f2, 0xc035c326]
TANH_GRAD = [0x3f69e73d, 0x3f6be046, 0x3dfc1fe5, 0x3f7dde29, 0x3dde1d79, 0x3f235051,
             0x3f688399, 0x3c5e2c5e]


def test_tanh_derivative_bits_as_jax():
    x = np.array(TANH_X, np.uint32).view(np.float32)
    got = np.asarray(astjax.jit(astjax.vmap(astjax.grad(jnp.tanh)))(x)).view(np.uint32)
    assert [hex(v) for v in got] == [hex(v) for v in TANH_GRAD]


def test_outer_is_jaxs_broadcast_product():
    """`jnp.outer` is a[:, None] * b[None, :] as JAX's (it was a dot_general: its
    derivative's sums rounded otherwise, 237 of 1,600 gradients of
    sum(outer(x, x) @ x + x) against jax 0.10.2)."""
    closed = astjax.make_jaxpr(jnp.outer)(np.ones(3, np.float32), np.ones(4, np.float32))
    assert [e.primitive.name for e in closed.jaxpr.eqns][-1] == "mul"
    assert "dot_general" not in str(closed)


def test_clamp_derivative_is_zero_at_its_bounds_and_nan_as_jax():
    """jax 0.10.2: an operand of `lax.clamp` passes its tangent only where it is the
    result strictly; astjax gave 1 at the bounds and at NaN (silently)."""
    from astjax import lax
    x = np.array([-0.5, 0.5, 0.2, -1, np.nan, 0.7], np.float32)
    got = astjax.vmap(astjax.grad(lambda x: lax.clamp(-0.5, x, 0.5)))(x)
    np.testing.assert_array_equal(got, [0, 0, 1, 0, 0, 0])
    got = astjax.vmap(astjax.grad(lambda hi, x: lax.clamp(-0.5, x, hi)))(x * 0 + 0.1, x)
    np.testing.assert_array_equal(got, [0, 1, 1, 0, 0, 1])
    lo = astjax.vmap(astjax.grad(lambda lo, x: lax.clamp(lo, x, 0.5)))(
        np.array([0.2, 0.6, -1], np.float32), np.zeros(3, np.float32))
    np.testing.assert_array_equal(lo, [1, 0, 0])
