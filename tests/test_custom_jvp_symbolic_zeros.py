"""`custom_jvp` rules defined with `symbolic_zeros=True` get a `SymbolicZero` for each
operand that carries no tangent, and may return one; and a custom rule runs only for
operands JAX differentiates. Expected values and tangent kinds recorded from JAX 0.10.2
running the same functions (equinox's `filter_custom_jvp` relies on both: its test_ad
asserts `ty is None` for a closed-over array, and its `nondifferentiable` guard is a
custom_jvp whose rule raises)."""
import pytest

import astjax
import astjax.numpy as jnp
from astjax.primitives.custom_derivatives import SymbolicZero

# (the rules record what they got in a list, once, while staging: intended here)
pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")


def _recording_mul(seen):
    @astjax.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        seen.append((isinstance(tx, SymbolicZero), isinstance(ty, SymbolicZero)))
        t = 0.0
        if not isinstance(tx, SymbolicZero):
            t = t + tx * y
        if not isinstance(ty, SymbolicZero):
            t = t + x * ty
        return x * y, t
    f.defjvp(f_jvp, symbolic_zeros=True)
    return f


THREE = jnp.array(3.0)
# case -> (value, [(tx is a SymbolicZero, ty is one)]) under JAX 0.10.2
CASES = {
    "jvp, y closed over": (lambda f: astjax.jvp(lambda x: f(x, THREE), (jnp.array(2.0),),
                                                (jnp.array(1.0),))[1], 3.0, [(False, True)]),
    "grad, y closed over": (lambda f: astjax.grad(lambda x: f(x, THREE))(2.0), 3.0,
                            [(False, True)]),
    "grad argnums=0, y an argument": (lambda f: astjax.grad(f)(2.0, 3.0), 3.0,
                                      [(False, True)]),
    "grad argnums=1": (lambda f: astjax.grad(f, argnums=1)(2.0, 3.0), 2.0, [(True, False)]),
    "grad through scan": (lambda f: astjax.grad(lambda c: astjax.lax.scan(
        lambda c, _: (f(c, THREE), None), c, None, length=2)[0])(2.0), 9.0, [(False, True)]),
    "grad through jit": (lambda f: astjax.grad(lambda c: astjax.jit(
        lambda c: f(c, THREE))(c))(2.0), 3.0, [(False, True)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_zero_tangents(case):
    run, value, kinds = CASES[case]
    seen = []
    assert float(run(_recording_mul(seen))) == value
    assert seen == kinds


def test_rule_may_return_a_symbolic_zero():
    @astjax.custom_jvp
    def g(x, y):
        return x + y, y

    def g_jvp(primals, tangents):
        x, y = primals
        tx, _ = tangents
        return (x + y, y), (tx, SymbolicZero.from_primal_value(y))
    g.defjvp(g_jvp, symbolic_zeros=True)
    _, (t1, t2) = astjax.jvp(lambda x: g(x, THREE), (jnp.array(2.0),), (jnp.array(1.0),))
    assert float(t1) == 1.0 and float(t2) == 0.0


def test_rule_does_not_run_for_an_argument_grad_does_not_differentiate():
    # JAX: `y` is a concrete value to an eager grad with argnums=0, no JVP tracer, so
    # the rule of a custom_jvp given only `y` never runs
    @astjax.custom_jvp
    def guard(x):
        return x

    @guard.defjvp
    def guard_jvp(primals, tangents):
        raise RuntimeError("the rule ran")

    def run(x, y):
        return x * guard(y)
    assert float(astjax.grad(run)(1.0, 2.0)) == 2.0
    # nor inside jit (a jit tracer is no JVP tracer) or vmap (nor is a batch tracer)
    assert float(astjax.jit(astjax.grad(run))(1.0, 2.0)) == 2.0
    got = astjax.vmap(astjax.grad(run))(jnp.ones(3), jnp.arange(3.0))
    assert [float(v) for v in got] == [0.0, 1.0, 2.0]


def test_rule_runs_for_a_differentiated_value_closed_over():
    # the rule runs when an operand depends on what grad differentiates, also through a
    # value the function closes over and through an inner jit
    calls = []

    @astjax.custom_jvp
    def double(x):
        return 2.0 * x

    @double.defjvp
    def double_jvp(primals, tangents):
        calls.append(1)
        return 2.0 * primals[0], 2.0 * tangents[0]

    def run(x):
        y = x * 3.0
        return astjax.jit(lambda: double(y))()
    assert float(astjax.grad(run)(1.0)) == 6.0
    assert float(astjax.jit(astjax.grad(run))(1.0)) == 6.0
    assert len(calls) == 2


def test_custom_vjp_perturbed_flags_of_arguments_grad_does_not_differentiate():
    seen = []

    @astjax.custom_vjp
    def f(x, y):
        return x * y

    def f_fwd(x, y):
        seen.append((x.perturbed, y.perturbed))
        return x.value * y.value, (x.value, y.value)

    def f_bwd(res, g):
        x, y = res
        return g * y, g * x
    f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)
    assert float(astjax.grad(f)(2.0, 3.0)) == 3.0
    assert float(astjax.jit(astjax.grad(f))(2.0, 3.0)) == 3.0
    assert float(astjax.grad(f, argnums=1)(2.0, 3.0)) == 2.0
    assert seen == [(True, False), (True, False), (False, True)]   # JAX 0.10.2
