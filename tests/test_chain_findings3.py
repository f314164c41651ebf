"""Findings of the transformation-chain and derivative-rule sweeps, third round
(tests/fuzz/chain_sweep.py depth 3, tests/fuzz/reduce_rule_sweep.py): derivatives whose
float32 bits must be JAX 0.10.2's (JAX's results stored as literal bits)."""
import numpy as np

import astjax as jax
import astjax.numpy as jnp


def _bits(a):
    return np.asarray(a).ravel().view(np.uint32).tolist()


def test_per_example_dot_weight_cotangent_bits_are_jaxs():
    # a right operand's cotangent summing over x's free axis is JAX's dot_general(ct, x)
    # + transpose (astjax's dot_general(x, ct) summed in another order: 1-3 ulps off);
    # reduce_rule_sweep: dot / matmul / einsum / tensordot / inner vmap_grad 614 -> 0
    def loss(x, y, w):
        return jnp.sum(jnp.dot(x, y) * w)
    rs = np.random.RandomState(8)
    x = rs.uniform(-2, 2, (2, 8, 2)).astype(np.float32)
    y = rs.uniform(-2, 2, (2, 2, 1)).astype(np.float32)
    w = rs.uniform(0.5, 2, (8, 1)).astype(np.float32)
    got = jax.jit(jax.vmap(jax.grad(loss, 1), in_axes=(0, 0, None)))(x, y, w)
    assert _bits(got) == [1078874000, 3190149533, 3240528093, 1090372878]


def test_an_outer_product_weight_cotangent_needs_no_transpose():
    # (the outer-product case keeps dot_general(x, ct) in y's axis order: the same
    # bits as JAX's, one fusion per weight where JAX's leaves a transpose and a copy)
    def loss(w, a):
        return jnp.sum(jnp.tanh(a[None] @ w))
    text = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0))).lower(
        jnp.ones((8, 4)), jnp.ones((3, 8))).as_text()
    assert "stablehlo.transpose" not in text
