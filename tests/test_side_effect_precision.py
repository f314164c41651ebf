"""Which Python side effects while staging warn (`frontend/operators.mutation`,
`store_into`, `global_store`): an effect into which only Python values flow is JAX's
behaviour exactly (it runs once per trace, in JAX as here), so it is silent -- the
trace-counting idiom of JAX libraries' test suites (`traces.append(None)`,
`calls.append(1)`, `counter[0] += 1`, `global N; N += 1`), which run with
`filterwarnings = error` (numpyro's `test_truncation_bounds_are_pytree_leaves`,
blackjax's `test_pretuning` failed on the warning). An effect that stores a staged
value (the object keeps a tracer, or the user expects each call's value) warns."""
import inspect
import warnings

import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import SideEffectWarning

TRACES, CALLS, COUNTER, TABLE, LOG, ACC = [], [], [0], {}, [], [0.0]
N = 0


def counts_traces(x):
    global N
    TRACES.append(None)
    CALLS.append(1)
    COUNTER[0] += 1
    TABLE["seen"] = TABLE.get("seen", 0) + 1
    N += 1
    return x + 1


def _error_on_side_effect_warning():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error", SideEffectWarning)
    return ctx


def test_trace_counting_idioms_are_silent_and_run_once_per_trace():
    global N
    TRACES.clear(), CALLS.clear(), TABLE.clear()
    COUNTER[0], N = 0, 0
    f = astjax.jit(counts_traces)
    ctx = _error_on_side_effect_warning()
    try:
        f(jnp.ones(2))
        f(jnp.zeros(2))            # the same trace: no effect (as JAX)
        f(jnp.ones(3))             # a new shape: traced again
    finally:
        ctx.__exit__(None, None, None)
    assert (len(TRACES), len(CALLS), COUNTER[0], TABLE["seen"], N) == (2, 2, 2, 2, 2)


class _Box:
    def __init__(self, v):
        self.v = v


def appends_staged(x):
    LOG.append(x * 2)
    return x


def appends_staged_in_a_dict(x):
    LOG.append({"a": (1, x)})
    return x


def appends_an_object_keeping_a_staged_value(x):
    LOG.append(_Box(x))
    return x


def appends_a_closure_over_a_staged_value(x):
    LOG.append(lambda: x)
    return x


def extends_with_a_generator(x):
    LOG.extend(v for v in (x,))
    return x


def adds_staged_into_an_item(x):
    ACC[0] += x
    return x


def stores_staged_item(x):
    TABLE["x"] = [x]
    return x


@pytest.mark.parametrize("fn, text, what", [
    (appends_staged, "LOG.append(x * 2)", "LOG.append"),
    (appends_staged_in_a_dict, "LOG.append({", "LOG.append"),
    (appends_an_object_keeping_a_staged_value, "LOG.append(_Box", "LOG.append"),
    (appends_a_closure_over_a_staged_value, "LOG.append(lambda", "LOG.append"),
    (extends_with_a_generator, "LOG.extend(", "LOG.extend"),
    (adds_staged_into_an_item, "ACC[0] += x", r"ACC\[...\]"),
    (stores_staged_item, 'TABLE["x"] = [x]', r"TABLE\[...\]")])
def test_storing_a_staged_value_warns_at_the_line(fn, text, what):
    LOG.clear()
    lines, start = inspect.getsourcelines(fn)
    line = start + next(i for i, s in enumerate(lines) if text in s)
    with pytest.warns(SideEffectWarning, match=what) as w:
        astjax.jit(fn)(1.0)
    assert any(f"test_side_effect_precision.py:{line}:" in str(r.message) for r in w)
    assert "stores a staged value" in str(w[0].message)
    LOG.clear()
    TABLE.clear()
    ACC[0] = 0.0
