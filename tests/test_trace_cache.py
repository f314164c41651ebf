"""A function handed to `lax.cond` / `switch` / `while_loop` / `scan` is staged once
per (function object, input tree, avals) while one program is staged, as JAX caches
its control-flow jaxprs: its Python side effects (a `print`, a counter) happen as many
times as under JAX. Counts: JAX 0.10.2 (`tests/oracle/record_trace_cache.py`)."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

from oracle.record_trace_cache import CASES, STAGING_CACHED

ORACLE = json.loads(Path(__file__).with_name("oracle").joinpath("trace_cache.json").read_text())
M = type("M", (), {"jax": astjax, "jnp": jnp, "lax": lax})
BY_NAME = {c.__name__: c for c in CASES}


@pytest.mark.parametrize("name", STAGING_CACHED)
def test_staged_as_often_as_jax(name):
    assert BY_NAME[name](M) == ORACLE[name]


def test_reused_branch_computes_both_ways():
    """The one staging serves both branches and both calls: the values stay right."""
    def f(x):
        return jnp.sin(x) * 2.0

    @astjax.jit
    def prog(p, x):
        return lax.cond(p, f, f, x) + lax.switch(2 - p.astype(jnp.int32), [f, f, jnp.cos], x)
    for p in (True, False):
        want = 4 * np.sin(0.5) if p else 2 * np.sin(0.5) + np.cos(0.5)
        np.testing.assert_allclose(float(prog(p, 0.5)), want, rtol=1e-6)


def test_closure_over_an_outer_value_is_reused_in_its_builder_only():
    """A branch closing over a staged value of the body it is called in: each body
    stages it afresh (the cache belongs to the open builder)."""
    def prog(xs):
        def body(c, x):
            g = lambda v: v + x
            return lax.cond(x > 0, g, g, c), None
        return lax.scan(body, 0.0, xs)[0] + lax.scan(body, 1.0, xs * 2)[0]
    xs = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(float(astjax.jit(prog)(xs)), 2.0 + 5.0, rtol=1e-6)
