"""Mechanism tests for issue 14 (speed), caches: a fresh `jit(f)` per call and an
unjitted `grad(f)` per step stage and compile once, keyed by the function (its name,
the globals it reads, its closure cells) and the transformation, not by the wrapper;
the same module text compiles once; the front end's caches of code objects are by
identity and weak. Each test pins *why* a workload is fast, never a time."""
import functools

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.codegen import compile_cache
from astjax.frontend import converter as _converter
from perf_helpers import compiles, counter  # noqa: F401 -- a fixture


SCALE = 2.0


def _reads_global(x):
    return x * SCALE


def _fresh_fn(x, y):
    return jnp.sin(x) * y + 1.0


def _make_closure(c):
    def f(x):
        return x * c
    return f


def _mlp_loss(params, x):
    w, b = params
    return jnp.sum(jnp.tanh(x @ w + b) ** 2)


@pytest.fixture
def stagings(monkeypatch):
    """Counts stagings of jitted functions (`Jitted._stage`)."""
    return counter(monkeypatch, astjax.api.Jitted, "_stage")


def test_fresh_jit_per_call_stages_and_compiles_once(compiles, stagings):
    x, y = jnp.ones(5), jnp.ones(5)
    before, n0 = compile_cache.fun_stats["hits"], compiles[0]
    outs = [astjax.jit(_fresh_fn)(x, y) for _ in range(10)]
    assert stagings[0] <= 1 and compiles[0] - n0 <= 1
    assert compile_cache.fun_stats["hits"] - before >= 9
    assert astjax.jit(_fresh_fn)._cache is astjax.jit(_fresh_fn)._cache
    assert astjax.jit(_fresh_fn)._cache is not astjax.jit(_fresh_fn, donate_argnums=0)._cache
    np.testing.assert_allclose(np.asarray(outs[-1]), np.sin(1.0) + 1.0, rtol=1e-6)


def _same_code_other_name():
    """Two functions of one code object, closure and globals, differing by name."""
    def make(name):
        def f(x):
            return x * 2.0
        f.__name__ = f.__qualname__ = name
        return f
    return make("first"), make("second")


def test_functions_differing_by_name_do_not_share_staging():
    # the module (and the program's name in errors) is the function's name, as JAX's
    # caches key on the function object: a shared record would name `second` `first`
    f, g = _same_code_other_name()
    x = jnp.ones(2)
    assert "@jit_first" in astjax.jit(f).lower(x).as_text()
    assert "@jit_second" in astjax.jit(g).lower(x).as_text()
    assert astjax.jit(f)._cache is not astjax.jit(g)._cache


def test_unjitted_grad_per_step_stages_and_compiles_once(compiles, stagings):
    params = (jnp.ones((3, 2)) * 0.1, jnp.zeros(2))
    x = jnp.ones((4, 3))
    first = astjax.grad(_mlp_loss)(params, x)
    n_stage, n_compile = stagings[0], compiles[0]
    for _ in range(10):
        g = astjax.grad(_mlp_loss)(params, x)
    assert stagings[0] == n_stage and compiles[0] == n_compile
    np.testing.assert_allclose(np.asarray(g[0]), np.asarray(first[0]))
    # other options are another transformation
    v, _ = astjax.value_and_grad(_mlp_loss)(params, x)
    assert stagings[0] > n_stage
    np.testing.assert_allclose(float(v), float(_mlp_loss(params, x)), rtol=1e-6)


def test_changed_global_is_not_served_stale():
    global SCALE
    x = jnp.ones(3)
    try:
        SCALE = 2.0
        assert float(astjax.jit(_reads_global)(x)[0]) == 2.0
        assert float(astjax.grad(lambda v: _reads_global(v).sum())(x)[0]) == 2.0
        SCALE = 3.0
        assert float(astjax.jit(_reads_global)(x)[0]) == 3.0
        gfun = astjax.grad(_reads_global_sum)
        assert float(gfun(x)[0]) == 3.0
        SCALE = 5.0
        assert float(astjax.grad(_reads_global_sum)(x)[0]) == 5.0
    finally:
        SCALE = 2.0


def _reads_global_sum(x):
    return jnp.sum(_reads_global(x))  # SCALE is read by the helper


def test_different_closure_cell_values_get_different_entries(stagings):
    x = jnp.ones(3)
    assert float(astjax.jit(_make_closure(2.0))(x)[0]) == 2.0
    assert float(astjax.jit(_make_closure(3.0))(x)[0]) == 3.0
    c = jnp.full(3, 4.0)
    assert float(astjax.grad(lambda v, f=_make_closure(c): f(v).sum())(x)[0]) == 4.0
    n = stagings[0]
    same = 7.5
    astjax.jit(_make_closure(same))(x)
    # re-created over the same object: staged again, as JAX traces a new function object
    # (its staging may read state no key holds); one function object's wrappers share
    astjax.jit(_make_closure(same))(x)
    assert stagings[0] == n + 2
    f = _make_closure(same)
    astjax.jit(f)(x)
    astjax.jit(f)(x)
    assert stagings[0] == n + 3


def test_same_module_text_is_compiled_once(compiles):
    x = np.arange(4, dtype=np.float32)
    astjax.jit(functools.partial(_fresh_fn, y=2.0))(x)  # a partial: no shared state
    n = compiles[0]
    hits = compile_cache.stats["memory_hits"]
    out = astjax.jit(functools.partial(_fresh_fn, y=2.0))(x)  # staged again, same text
    assert compiles[0] == n and compile_cache.stats["memory_hits"] == hits + 1
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * 2 + 1, rtol=1e-6)


class _Unhashable:
    """A weak-referenceable key whose hash is an error (as a code object's is a walk)."""
    def __hash__(self):
        raise AssertionError("hashed")


def test_code_caches_are_by_identity_and_weak():
    """The front end's caches of code objects (converted user code, frame positions,
    conversions, shared jit state) look keys up by identity -- hashing a code object
    walks its names and constants, once per staged operation for `user_location`:
    quadratic in a function's statements -- and drop an entry when its key dies."""
    import weakref
    from astjax import errors, util
    from astjax.codegen import compile_cache
    for cache in (errors.USER_CODE, errors._positions_cache, _converter._factories,
                  compile_cache._fun_records):
        assert isinstance(cache, util.WeakIdMap)
    m, k, other = util.WeakIdMap(), _Unhashable(), _Unhashable()
    m[k] = 1
    assert m.get(k) == 1 and k in m and other not in m and m.get(other) is None
    ref = weakref.ref(k)
    del k
    assert ref() is None and len(m) == 0
    # equal code objects of two files are told apart
    a = compile("def f(x):\n    return x\n", "/one.py", "exec")
    b = compile("def f(x):\n    return x\n", "/two.py", "exec")
    assert a == b
    m[a] = 1
    assert a in m and b not in m
