"""A function handed to `lax.cond` / `switch` / `while_loop` / `scan`, or wrapped in an
inner `jit` / `checkpoint`, is staged once per (function, options, static arguments,
input tree, avals) while one program is staged, and an inner `jit` / `checkpoint` once
across programs too, as JAX caches traced jaxprs: the function's Python side effects
(a `print`, a counter) happen as many times as under JAX. Counts: JAX 0.10.2
(`tests/oracle/record_trace_cache.py`)."""

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

from oracle.record_trace_cache import CASES, KNOWN_DIFFERENT, STAGING_CACHED
from oracle import compare

ORACLE = compare.load("trace_cache")
M = type("M", (), {"jax": astjax, "jnp": jnp, "lax": lax})
BY_NAME = {c.__name__: c for c in CASES}


@pytest.mark.parametrize("name", STAGING_CACHED)
def test_staged_as_often_as_jax(name):
    assert BY_NAME[name](M) == ORACLE[name]


def test_every_case_is_matched_or_pinned():
    assert sorted(STAGING_CACHED + list(KNOWN_DIFFERENT)) == sorted(BY_NAME)


@pytest.mark.parametrize("name", sorted(KNOWN_DIFFERENT))
def test_known_difference_pinned(name):
    """astjax's count where it differs from JAX's (docs/coming_from_jax.md)."""
    assert KNOWN_DIFFERENT[name] != ORACLE[name]
    assert BY_NAME[name](M) == KNOWN_DIFFERENT[name]


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


def test_inner_jit_and_checkpoint_staged_once_compute_each_call():
    """One staging of an inner `jit` / `checkpoint` serves calls on other values and
    other static arguments stage their own: every call computes its own result."""
    def f(x, k):
        return jnp.sin(x) * k
    jf, cf = astjax.jit(f, static_argnums=1), astjax.checkpoint(f, static_argnums=1)

    @astjax.jit
    def prog(x, y):
        return jf(x, 2) + jf(y, 2) * 10 + jf(x, 3) * 100 + cf(y, 2) * 1000 + cf(x, 3) * 1e4
    x, y = np.float32(0.25), np.float32(0.5)
    want = np.sin(x) * (2 + 300 + 3e4) + np.sin(y) * (20 + 2000)
    np.testing.assert_allclose(float(prog(x, y)), want, rtol=1e-5)
    np.testing.assert_allclose(float(astjax.grad(prog)(x, y)), np.cos(x) * (2 + 300 + 3e4),
                               rtol=1e-5)


@pytest.mark.parametrize("wrap", [astjax.jit, astjax.checkpoint])
def test_closure_over_a_value_of_another_builder_is_staged_again(wrap):
    """A function reading a staged value of the loop body it runs in (through a holder
    it closes over): each body stages it afresh; a staging cached across builders would
    read the first body's value."""
    holder = {}
    g = wrap(lambda v: v + holder["x"])

    def body(c, x):
        holder["x"] = x
        return g(c) + g(c), None

    @astjax.jit
    def prog(xs):
        return lax.scan(body, 0.0, xs)[0] + lax.scan(body, 1.0, xs * 2)[0]
    xs = np.array([1.0, -2.0], np.float32)
    want = (0.0 * 4 + 2 * (1 * 2 + (-2))) + (1.0 * 4 + 2 * (2 * 2 + (-4)))
    np.testing.assert_allclose(float(prog(xs)), want, rtol=1e-6)


def test_weak_and_strong_results_of_an_inner_jit():
    """A Python scalar an inner jit returns stays weakly typed, and arguments that
    differ only in weak type stage separately: the dtypes are those of the same
    program without the inner jit."""
    def f(v):
        return v * 2, 3.0

    def prog(x, h):
        a, b = jf(x)
        c, _ = jf(np.float32(1.0))
        return a * h, b * h, c * h
    jf = astjax.jit(f)
    h = jnp.ones(2, jnp.bfloat16)
    got = [r.dtype for r in astjax.jit(prog)(1.0, h)]
    jf = f
    assert got == [r.dtype for r in astjax.jit(prog)(1.0, h)]


SCALE = 1.0


def _scaled(v):
    return v * SCALE


@pytest.mark.parametrize("wrap", [astjax.jit, astjax.checkpoint])
def test_a_rebound_global_is_read_again_by_the_next_program(wrap):
    """The staging a program leaves for the next ones is not served once a global the
    function reads is rebound: the next program stages it again and reads the new value
    (`compile_cache.shared_state`)."""
    global SCALE
    g = wrap(_scaled)
    progs = [astjax.jit(lambda x: g(x) + 1.0), astjax.jit(lambda x: g(x) * 1.0)]
    try:
        SCALE = 2.0
        assert float(progs[0](3.0)) == 7.0
        SCALE = 5.0
        assert float(progs[1](3.0)) == 15.0
    finally:
        SCALE = 1.0


@pytest.mark.parametrize("wrap", [astjax.jit, astjax.checkpoint])
def test_a_staging_closing_over_a_staged_value_stays_in_its_program(wrap):
    """A staging whose consts are values of the program that staged it is not kept for
    the next program (it would read a value of a finished program)."""
    holder = {}
    g = wrap(lambda v: v + holder["x"])

    def prog(x, k):
        holder["x"] = x * k
        return g(x)
    progs = [astjax.jit(lambda x: prog(x, 2.0)), astjax.jit(lambda x: prog(x, 3.0))]
    assert [float(p(1.0)) for p in progs] == [3.0, 4.0]


def test_an_eager_staging_serves_a_program_with_its_values():
    """`jit(f)` called eagerly, then inside a program on other values: the program
    inlines the eager call's staging (JAX stages `f` once) and computes its own values."""
    jf = astjax.jit(lambda v, w: jnp.sin(v) * w)
    x = np.float32(0.5)
    np.testing.assert_allclose(float(jf(x, 2.0)), 2 * np.sin(0.5), rtol=1e-6)
    prog = astjax.jit(lambda v: jf(v * 2, 3.0) + 1.0)
    np.testing.assert_allclose(float(prog(x)), 3 * np.sin(1.0) + 1, rtol=1e-6)
    np.testing.assert_allclose(float(astjax.grad(prog)(x)), 6 * np.cos(1.0), rtol=1e-6)


def test_a_program_staging_serves_an_eager_call_with_its_values():
    """A program stages an inner `jit(f)`; an eager call of it afterwards compiles that
    staging (JAX traces `f` once) and computes on its own arguments."""
    jf = astjax.jit(lambda v: jnp.cos(v) * 2.0)
    np.testing.assert_allclose(float(astjax.jit(lambda v: jf(v) + 1.0)(0.5)),
                               2 * np.cos(0.5) + 1, rtol=1e-6)
    np.testing.assert_allclose(float(jf(0.25)), 2 * np.cos(0.25), rtol=1e-6)


_MODE = {"scale": 1.0}


def _reads_hidden_state(v):
    return v * _MODE["scale"]   # state outside the function's own globals and cells


def _made_again():
    h = _reads_hidden_state

    def f(v):
        return h(v) + 0.0
    return f


def test_a_function_made_again_is_staged_again():
    """A function object made again -- same code, same captured values -- is staged
    again, as JAX traces a new function object again: its staging may read state no
    key holds (chex's `chexify` mode, a thread-local). Wrappers of one function object
    still share one staging (`compile_cache.shared_state`)."""
    x = jnp.ones(2)
    try:
        np.testing.assert_array_equal(np.asarray(astjax.jit(_made_again())(x)), [1.0, 1.0])
        _MODE["scale"] = 3.0
        np.testing.assert_array_equal(np.asarray(astjax.jit(_made_again())(x)), [3.0, 3.0])
        f = _made_again()
        assert astjax.jit(f)._cache is astjax.jit(f)._cache
        assert astjax.jit(f)._cache is not astjax.jit(_made_again())._cache
    finally:
        _MODE["scale"] = 1.0
