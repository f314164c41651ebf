"""Under an eager `grad` / `vmap` / `jvp`, a value that depends on no transformed input is
concrete, as JAX's op-by-op transformations give it.

JAX runs `vmap(f)(x)`, `grad(f)(x)`, `jvp(...)` outside `jit` op by op: an operation none
of whose operands is transformed gives a concrete array, so a Python `if` and `int()` on
it are Python's (lineax's and diffrax's test suites rely on it). astjax stages the
function to compile it; while it stages the function's own builder, such an operation
runs now (`astjax/op_by_op.py`). Under `jit` everything stays staged, as JAX's
omnistaging. Expected values are JAX 0.10.2's.
"""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import ShapeError

M = jnp.ones((3, 3))
KEY = jax.random.PRNGKey(0)


def branchy(x):
    if M[0, 0] == 1.0:   # depends on no transformed input
        return M[1:].sum() * x
    return M[:, 1:] * x


def as_int(x):
    return x * int(M.sum())


def chosen(x):   # lineax's test_vmap
    if jax.random.choice(KEY, jnp.arange(3)) == 0:
        return M[1:].sum() + x
    return M[:, 1:] + x


def test_grad_decides_if_on_global_value():
    assert float(jax.grad(branchy)(1.0)) == 6.0


def test_vmap_decides_if_on_global_value():
    np.testing.assert_array_equal(jax.vmap(branchy)(jnp.zeros(2)), [0.0, 0.0])


def test_jvp_decides_if_on_global_value():
    y, t = jax.jvp(branchy, (1.0,), (1.0,))
    assert (float(y), float(t)) == (6.0, 6.0)


def test_nested_transformations():
    np.testing.assert_array_equal(jax.vmap(jax.grad(branchy))(jnp.ones(2)), [6.0, 6.0])
    assert float(jax.grad(lambda x: jax.vmap(branchy)(x).sum())(jnp.ones(2))[0]) == 6.0


def test_int_of_global_value():
    assert float(jax.grad(as_int)(1.0)) == 9.0
    np.testing.assert_array_equal(jax.vmap(as_int)(jnp.ones(2)), [9.0, 9.0])


def test_random_draw_of_global_key_is_concrete():
    out = jax.vmap(chosen)(jnp.zeros(2))
    taken = int(jax.random.choice(KEY, jnp.arange(3)))
    assert out.shape == ((2,) if taken == 0 else (2, 3, 2))
    np.testing.assert_array_equal(out, np.full(out.shape, 6.0 if taken == 0 else 1.0))


def test_jit_stages_as_before():
    # JAX's omnistaging: under `jit` the `if` is on a staged value (astjax: a `cond`,
    # whose branches differ in shape here)
    with pytest.raises(ShapeError):
        jax.jit(jax.grad(branchy))(1.0)
    with pytest.raises(ShapeError):
        jax.make_jaxpr(jax.vmap(branchy))(jnp.zeros(2))
    text = str(jax.make_jaxpr(jax.grad(lambda x: M.sum() * x))(1.0))
    assert "reduce_sum" in text


SCALE = jnp.array(1.0)


def scaled(x):
    if SCALE == 1.0:
        return 2.0 * x
    return 3.0 * x


def test_rebound_global_stages_again():
    global SCALE
    g = jax.grad(scaled)
    assert float(g(1.0)) == 2.0
    old, SCALE = SCALE, jnp.array(0.0)
    try:
        assert float(g(1.0)) == 3.0
        assert float(jax.vmap(g)(jnp.ones(2))[0]) == 3.0
    finally:
        SCALE = old
    assert float(g(1.0)) == 2.0


def test_callback_runs_on_every_call():
    calls = []

    def f(x):
        jax.debug.callback(lambda: calls.append(1))
        return x * M.sum()

    g = jax.grad(f)
    g(1.0)
    g(2.0)
    jax.block_until_ready(g(3.0))
    assert len(calls) == 3


def test_loop_body_stays_staged():
    # a `lax.scan` body is staged, as JAX traces it: the global's sum inside is staged
    def f(x):
        def body(c, _):
            return c + M.sum() * x, None
        return jax.lax.scan(body, 0.0, None, length=2)[0]

    assert float(jax.grad(f)(1.0)) == 18.0


def test_collective_over_named_axis_stays_staged():
    # `psum(1, 'i')` is on no transformed operand, yet is the axis size, not 1
    out = jax.vmap(lambda x: x + jax.lax.psum(1, "i"), axis_name="i")(jnp.zeros(3))
    np.testing.assert_array_equal(out, [3.0, 3.0, 3.0])


def test_checkpoint_inside_grad_stays_staged():
    # `checkpoint` traces its function to a jaxpr in JAX too: its constants are staged
    f = jax.checkpoint(lambda x: M.sum() * jnp.sin(x))
    np.testing.assert_allclose(jax.grad(f)(0.0), 9.0)


def test_eager_while_loop_returns_a_forwarded_carry_itself():
    # JAX's while_loop returns a carry the body passes on unchanged (and the condition
    # does not read) as the initial value itself: a Python scalar stays one (JAX 0.10.2:
    # `(Array(2, weak), 1.5, Array(4., weak))`); under `jit` it is an Array
    loop = lambda: jax.lax.while_loop(lambda c: c[0] < 2,
                                      lambda c: (c[0] + 1, c[1], c[2] * 2.0), (0, 1.5, 1.0))
    i, same, doubled = loop()
    assert same == 1.5 and type(same) is float
    assert int(i) == 2 and float(doubled) == 4.0
    assert not isinstance(jax.jit(loop)()[1], float)
    key = jax.random.key(1)
    assert jax.lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1]), (0, key))[1] is key
