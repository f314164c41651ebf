"""A value passed to an inner `jit` carries a tangent inside it exactly when the value
passed does (`ad_frames.inputs_as_given`): JAX differentiates the `jit` equation with
its operands' tangents, so a constant operand is no JVP tracer in the body and a custom
rule does not run for it. diffrax's `BacksolveAdjoint` with `SaveAt(ts=...)` under
`grad` relied on it (equinox's `nondifferentiable` on `saveat.ts` inside the jitted
`diffeqsolve` raised "Unexpected tangent"). Outcomes are JAX 0.10.2's."""
import functools

import pytest

import astjax as jax
import astjax.numpy as jnp


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def nondifferentiable(msg, x):   # equinox's `nondifferentiable`
    return x


@nondifferentiable.defjvp
def _raises(msg, primals, tangents):
    raise RuntimeError(msg)


@jax.jit
def inner(y, ts):
    return y * nondifferentiable("Unexpected tangent", ts).sum()


TS = jnp.array([0.5])


def test_constant_passed_to_inner_jit_carries_no_tangent():
    assert float(jax.grad(lambda y: inner(y, TS))(1.0)) == 0.5
    assert float(jax.jit(jax.grad(lambda y: inner(y, TS)))(1.0)) == 0.5
    p, t = jax.jvp(lambda y: inner(y, TS), (1.0,), (1.0,))
    assert (float(p), float(t)) == (0.5, 0.5)


def test_perturbed_value_passed_to_inner_jit_carries_its_tangent():
    with pytest.raises(RuntimeError, match="Unexpected tangent"):
        jax.grad(lambda y: inner(1.0, y * TS))(1.0)


def test_one_body_for_both_calls():
    # the body staged for the first call serves the second, whose operand is perturbed:
    # the rule runs when the call is differentiated (JAX: 3.0 * t)
    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def tripled(msg, x):
        return x * 1.0

    @tripled.defjvp
    def _rule(msg, p, t):
        return tripled(msg, *p), 3.0 * t[0]

    g = jax.jit(lambda y, c: y * tripled("", c).sum())
    both = lambda y: g(y, TS) + g(1.0, y * TS)
    rev = lambda y: g(1.0, y * TS) + g(y, TS)
    assert float(jax.grad(both)(1.0)) == float(jax.grad(rev)(1.0)) == 2.0
    assert float(jax.jit(jax.grad(both))(1.0)) == 2.0


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records the flags
def test_custom_vjp_perturbed_flags_inside_inner_jit():
    seen = []

    @jax.custom_vjp
    def f(x, c):
        return x * c.sum()

    def f_fwd(x, c):
        seen.append((x.perturbed, c.perturbed))
        return f(x.value, c.value), (c.value,)

    f.defvjp(f_fwd, lambda res, g: (g * res[0].sum(), None), symbolic_zeros=True)
    h = jax.jit(lambda y, c: f(y, c))
    assert float(jax.grad(lambda y: h(y, jnp.array([0.5, 1.0])))(1.0)) == 1.5
    assert seen == [(True, False)]


def test_inner_jit_staged_per_tangent_pattern():
    # the body staged for operands of one tangent pattern does not serve another: a
    # fwd that reads `perturbed` sees each call's own (was the first call's, silently:
    # 1.5 where JAX gives 15.0 and 33.0)
    @jax.custom_vjp
    def f(x, c):
        return x * c.sum()

    def f_fwd(x, c):
        return f(x.value, c.value), (c.value, x.value, 10.0 if c.perturbed else 1.0)

    def f_bwd(res, g):
        c, x, s = res
        return g * c.sum(), s * g * x * jnp.ones_like(c)

    f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)
    h = jax.jit(lambda y, c: f(y, c))
    c = jnp.array([0.5, 1.0])
    assert float(jax.grad(lambda y: h(y, c))(1.0)) == 1.5
    assert float(jax.grad(lambda y: h(1.0, y * c))(1.0)) == 15.0
    assert float(jax.grad(lambda y: h(y, y * c))(2.0)) == 33.0


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # counts the runs
def test_rule_inside_inner_jit_runs_once_per_tangent_pattern():
    # JAX caches the jit equation's derivative by its operands' tangent pattern: the
    # rule runs once for the pattern, not once per differentiated program (was 3)
    ran = []

    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def tripled(msg, x):
        return x * 1.0

    @tripled.defjvp
    def _rule(msg, p, t):
        ran.append(1)
        return tripled(msg, *p), 3.0 * t[0]

    g = jax.jit(lambda y, c: y * tripled("", c).sum())
    both = lambda y: g(y, TS) + g(1.0, y * TS)
    rev = lambda y: g(1.0, y * TS) + g(y, TS)
    assert float(jax.grad(both)(1.0)) == 2.0 and len(ran) == 1
    assert float(jax.grad(rev)(1.0)) == 2.0 and len(ran) == 1
    assert float(jax.jit(jax.grad(both))(1.0)) == 2.0 and len(ran) == 1
