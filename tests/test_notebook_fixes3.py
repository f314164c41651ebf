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


def test_eager_grad_adds_no_nan_from_the_branch_not_taken():
    # examples/physical_optimization.py: an eager `grad` of a function whose Python `if`
    # tests a differentiated value staged a `cond`, so the branch not taken sent a zero
    # cotangent back through `sqrt` of a negative number: NaN where JAX, which runs
    # only the branch the primal takes, gives 0 (silently: the board's gradient was NaN).
    assert float(astjax.grad(_sqrt_or_zero)(-1.0)) == 0.0
    assert float(astjax.grad(_sqrt_or_zero)(4.0)) == 0.25
    assert float(astjax.value_and_grad(_sqrt_or_zero)(-1.0)[1]) == 0.0
    assert float(astjax.jacrev(_sqrt_or_zero)(-1.0)) == 0.0
    # a NaN the taken branch itself makes stays
    assert jnp.isnan(astjax.grad(lambda x: jnp.sqrt(x) if x < 0 else x)(-1.0))
