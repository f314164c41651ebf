"""Differences found by running JAX's documentation notebooks and the programs of JAX's
`examples/` directory under astjax (`tests/notebooks/run.py`, FAILURES.md), each
pinned against JAX 0.10.2's behaviour."""
import astjax
import astjax.numpy as jnp


def _sqrt_or_zero(x):
    y = jnp.sqrt(x)
    if x > 0:
        return y
    return 0.0 * x


def test_return_in_a_staged_if_keeps_the_weak_type():
    # examples/physical_optimization.py: a `return` inside an `if` whose test is staged
    # filled the other path's return value with *strong* zeros, so the result lost its
    # weak type: `jit(f)(-1.0) + jnp.float16(1)` was float32 where JAX's value of
    # `f(-1.0)` (weak float32) gives float16.
    out = astjax.jit(_sqrt_or_zero)(-1.0)
    assert (float(out), out.weak_type) == (0.0, True)
    assert str((out + jnp.float16(1)).dtype) == "float16"
    value, _ = astjax.value_and_grad(_sqrt_or_zero)(-1.0)
    assert value.weak_type
    primal, tangent = astjax.jvp(_sqrt_or_zero, (-1.0,), (1.0,))
    assert (primal.weak_type, tangent.weak_type) == (True, True)
