"""An eager transformation's program rounds each 16-bit float operation, as JAX's
op-by-op evaluation does (`op_by_op.compile_options`: XLA's excess precision off),
while an inner `jit` that computes in 16 bits keeps XLA's excess precision inside it,
as JAX compiles its equation whole. Values are JAX 0.10.2's (bfloat16 results rounded
to bfloat16 steps: the same on every recorded host)."""
import numpy as np

import astjax as jax
import astjax.numpy as jnp
from astjax import op_by_op
from astjax.scipy.special import owens_t

H = np.array([1.5, 1.0, -0.0, 0.3], jnp.bfloat16)
A = np.array([0.5, -10.5, -7.5, 3.0], jnp.bfloat16)
OP_BY_OP = [0.022006455808877945, -0.0791015625, -0.2288818359375, 0.17823180556297302]
COMPILED = [0.022006455808877945, -0.0791015625, -0.22885572910308838, 0.17725524306297302]


def test_eager_vmap_rounds_each_bfloat16_step():
    # seed 65178's follow-up: vmap(owens_t) gave the compiled digits (JAX: op by op's)
    np.testing.assert_array_equal(np.asarray(jax.vmap(owens_t)(H, A)), np.float32(OP_BY_OP))


def test_inner_jit_keeps_excess_precision():
    np.testing.assert_array_equal(np.asarray(jax.vmap(jax.jit(owens_t))(H, A)),
                                  np.float32(COMPILED))


def test_option_only_for_16_bit_arithmetic():
    # a float32 program, or 16-bit values only moved or selected, compile as before
    f32 = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(np.ones(2, np.float32))
    moved = jax.make_jaxpr(lambda x: jnp.where(x > 0, x, -x)[::-1])(np.ones(2, jnp.bfloat16))
    narrow = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(np.ones(2, np.float16))
    assert op_by_op.compile_options(f32) == op_by_op.compile_options(moved) == ()
    assert op_by_op.compile_options(narrow) == (("xla_allow_excess_precision", False),)
