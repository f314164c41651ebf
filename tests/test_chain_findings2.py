"""Findings of the transformation-chain and derivative-rule sweeps
(tests/fuzz/chain_sweep.py, tests/fuzz/reduce_rule_sweep.py): second derivatives whose
float32 bits must be JAX 0.10.2's (JAX's results stored as literal bits)."""
import numpy as np

import astjax as jax
import astjax.numpy as jnp

X5 = np.array([-0.33191198, 0.88129795, -1.9995425, -0.79066974, -1.4129764], np.float32)
V5 = np.array([1.9832916, 1.6222485, 0.920666, 1.683919, 0.65483904], np.float32)


def _grad_of_grad(f, x, v):
    """jit(grad) of the weighted sum of grad(f(x) * w) with the weights passed in."""
    def g2(x, w, v):
        return jnp.sum(jax.grad(lambda x, w: f(x) * w)(x, w) * v)
    return np.asarray(jax.jit(jax.grad(g2))(x, np.float32(1.3), v)).view(np.uint32).tolist()


def test_norm_is_one_jit_equation_as_in_jax():
    eqns = jax.make_jaxpr(jnp.linalg.norm)(X5).eqns
    assert [e.primitive.name for e in eqns] == ["jit"]
    assert eqns[0].params["name"] == "norm"


def test_norm_second_derivative_bits_are_jaxs():
    # (astjax inlined norm's library jit: the outer grad summed x's cotangents in
    # another order, 1 ulp off JAX's in 2 of these 5)
    assert _grad_of_grad(jnp.linalg.norm, X5, V5) == [
        1063193206, 1064598457, 1015465024, 1059191890, 1012892256]


def test_cumlogsumexp_jvp_calls_logaddexp_as_a_custom_jvp_function():
    # JAX's jvp of cumlogsumexp is that of an associative scan of the custom_jvp
    # `logaddexp`: a second derivative differentiates its primal by logaddexp's rule,
    # not by its formula (astjax's was the formula's: bits off JAX's)
    def loss(x):
        return jnp.sum(jax.lax.cumlogsumexp(x) * np.float32(1.5))
    eqns = jax.make_jaxpr(jax.grad(loss))(X5[:2]).eqns
    assert "custom_jvp_call" in [e.primitive.name for e in eqns]
    x = np.array([0.3, -1.2, 0.7, 1.9, -0.4], np.float32)
    w = np.array([1.3, 0.6, 1.1, 0.9, 1.7], np.float32)
    v = np.array([0.7, 1.5, 0.6, 1.2, 0.9], np.float32)

    def g2(x, w, v):
        return jnp.sum(jax.grad(lambda x, w: jnp.sum(jax.lax.cumlogsumexp(x) * w))(x, w) * v)
    got = np.asarray(jax.jit(jax.grad(g2))(x, w, v)).view(np.uint32).tolist()
    assert got == [3191413028, 1043722238, 3196793726, 1049826777, 3158948583]


def test_a_grad_inside_a_grad_merges_no_equations_before_it_is_differentiated():
    # the inner grad's program was CSE'd (its two sin(y) one equation) before the
    # outer grad transposed it: y's cotangents summed in another order than JAX's,
    # which merges none (1 ulp off in 2 of these 6)
    def f(x):
        return jnp.sin(x) * jnp.sin(x) + jnp.sin(x)

    def g2(x):
        return jax.grad(lambda y: jax.grad(f)(y) * y)(x)
    x = np.array([0.3, -1.2, 0.7, 1.9, -0.4, 1.3], np.float32)
    got = np.asarray(jax.jit(jax.vmap(g2))(x)).view(np.uint32).tolist()
    assert got == [1073125465, 1051535256, 1069860362, 3233260597, 3204606428, 3224151149]
