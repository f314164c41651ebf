"""What JAX's JVP tracers tell code that inspects them, and jvp's checks of tangents.

`isinstance(x, jax.interpreters.ad.JVPTracer)` and `x._trace.main is
jax.extend.core.find_top_trace(...).main` tell, inside a differentiated function,
which values carry a tangent of that differentiation (equinox's `filter_jvp` keeps
exactly those as differentiated outputs). Expected kinds recorded from JAX 0.10.2 on
the same functions; astjax makes no tracer objects, so the test reads only these two
questions. `jvp` refuses a tangent whose dtype is not its primal's (weak types aside)
with JAX's TypeError."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.extend.core import find_top_trace
from astjax.interpreters.ad import JVPTracer

OUTER = jnp.array(2.0)
# (the functions record what they saw in a dict or list, once, while staging: intended)
pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")


def _kinds(fn, *primals):
    """For each output of fn: does it carry a tangent of jvp's own trace?"""
    seen = {}

    def wrapped(*xs):
        main = find_top_trace(xs).main
        outs = fn(*xs)
        seen["kinds"] = [isinstance(o, JVPTracer) and o._trace.main is main for o in outs]
        return outs
    astjax.jvp(wrapped, primals, tuple(jnp.ones_like(p) for p in primals))
    return seen["kinds"]


# function -> the kinds JAX 0.10.2 gives its outputs under jvp in x
CASES = {
    "input and arithmetic": (lambda x: (x, x * 2.0, jnp.sin(x)), [True, True, True]),
    "constants": (lambda x: (jnp.array(1.0) * 3.0, OUTER, x * 0.0 + 1.0), [False, False, True]),
    "stop_gradient": (lambda x: (astjax.lax.stop_gradient(x), x), [False, True]),
    "integer result": (lambda x: (x.astype(jnp.int32), x.astype(jnp.float16)), [False, True]),
    "through jit, per output": (lambda x: astjax.jit(lambda a, b: (a * 2.0, b * 3.0))(x, OUTER),
                                [True, False]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_jvp_tracer_kinds(case):
    fn, kinds = CASES[case]
    assert _kinds(fn, jnp.array(1.5)) == kinds


def test_outer_differentiation_values_are_not_the_inner_ones():
    # jvp inside jvp: a value of the outer function, returned by the inner one, is no
    # JVP tracer of the inner trace (JAX: equinox's test_double_filter_jvp)
    got = {}

    def f(x):
        def g(y):
            main = find_top_trace((y,)).main
            got["inner"] = [isinstance(o, JVPTracer) and o._trace.main is main
                            for o in (y, x)]
            return y, x
        return astjax.jvp(g, (x,), (1.0,))[1][0]
    astjax.jvp(f, (1.0,), (1.0,))
    assert got["inner"] == [True, False]


def test_no_jvp_tracers_outside_differentiation():
    seen = []

    @astjax.jit
    def f(x):
        seen.append(isinstance(x, JVPTracer))
        return x
    f(jnp.array(1.0))
    assert seen == [False] and not isinstance(jnp.array(1.0), JVPTracer)


# (primal, tangent) -> JAX 0.10.2 accepts (True) or raises TypeError (False)
TANGENTS = [
    (np.float32(1.0), np.int32(5), False),
    (1.0, np.int32(5), False),
    (np.float32(1.0), 5, False),
    (np.float32(1.0), np.float16(5.0), False),
    (1.0, 5.0, True),
    (np.float32(1.0), 5.0, True),
    (np.float16(1.0), 5.0, False),
    (np.float16(1.0), np.float32(5.0), False),
    (1.0, np.float16(5.0), False),
]


@pytest.mark.parametrize("primal,tangent,ok", TANGENTS)
@pytest.mark.parametrize("jitted", [False, True])
def test_jvp_tangent_dtype(primal, tangent, ok, jitted):
    def run(p, t):
        return astjax.jvp(lambda x: x * 2, (p,), (t,))[1]
    run = astjax.jit(run) if jitted else run
    p, t = jnp.asarray(primal) if jitted else primal, jnp.asarray(tangent) if jitted else tangent
    if jitted and isinstance(primal, float):
        p = primal
    if jitted and isinstance(tangent, (int, float)):
        t = tangent
    if ok:
        assert float(run(p, t)) == 10.0
    else:
        with pytest.raises(TypeError, match="dtypes must be equal"):
            run(p, t)
