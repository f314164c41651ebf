"""`global` statements in converted functions (frontend/control_flow.py, converter.py,
operators.global_store): reads and writes of module globals, in branches and loops,
under jit / grad / vmap, with Python's semantics on the staging call -- or a located
error where they cannot be staged: a staged value stored into a global (JAX leaks the
tracer silently; here EscapedTracerError, JAX's UnexpectedTracerError, a TypeError),
or a store under a staged `if` / `while` test (it would happen on both paths / an
unknown number of times). A static store is silent: it happens once per trace, as in
JAX (the `global n; n += 1` trace counter)."""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import (AstjaxError, ConcretizationError, EscapedTracerError,
                           SideEffectWarning)

SCALE = 2.0
COUNT = 0
LAST_I = None
PAIR = None


def _silent():
    """A context in which a SideEffectWarning fails the test (`filterwarnings = error`,
    as JAX libraries' test suites run): a static store is JAX's behaviour."""
    ctx = warnings.catch_warnings()

    class _C:
        def __enter__(self):
            ctx.__enter__()
            warnings.simplefilter("error", SideEffectWarning)

        def __exit__(self, *exc):
            return ctx.__exit__(*exc)
    return _C()


def _line(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, l in enumerate(lines) if text in l)


def reads_global_in_branches_and_loops(x):
    global SCALE
    y = x
    if x.sum() > 0:            # staged test: cond, reading SCALE in both branches
        y = y * SCALE
    else:
        y = y - SCALE
    for i in range(3):         # a scan, reading SCALE in its body
        y = y + SCALE * x
    return y


def test_reads_in_branches_and_loops_under_transforms():
    f = reads_global_in_branches_and_loops
    x = np.array([0.5, 1.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SideEffectWarning)   # reads are not effects
        np.testing.assert_allclose(astjax.jit(f)(x), f(x), rtol=1e-6)
        np.testing.assert_allclose(astjax.jit(f)(-x), f(-x), rtol=1e-6)
        np.testing.assert_allclose(astjax.grad(lambda x: f(x).sum())(x), [8.0, 8.0])
        np.testing.assert_allclose(astjax.vmap(f)(np.stack([x, -x])), [f(x), f(-x)],
                                   rtol=1e-6)


def counts_calls(x):
    global COUNT
    COUNT += 1
    for i in range(3):         # static trip count: unrolled, one store per trip
        COUNT = COUNT + 1
    if x.shape[0] > 1:         # static test: only the taken branch stores
        COUNT += 10
    else:
        COUNT = -100
    return x * COUNT


def test_static_stores_run_as_python_on_the_staging_call():
    global COUNT
    COUNT = 0
    with _silent():
        y = astjax.jit(counts_calls)(jnp.ones(2))
    assert COUNT == 14
    np.testing.assert_allclose(y, [14.0, 14.0])
    COUNT = 0
    np.testing.assert_allclose(astjax.grad(lambda x: counts_calls(x).sum())(jnp.ones(3)),
                               [14.0] * 3)
    assert COUNT == 14
    COUNT = 0
    np.testing.assert_allclose(astjax.vmap(counts_calls)(jnp.ones((2, 3))),
                               np.full((2, 3), 14.0))
    assert COUNT == 14


def loop_target_is_global(x):
    global LAST_I
    for LAST_I in range(4):
        x = x * 2.0
    return x


def test_global_loop_target():
    global LAST_I
    LAST_I = None
    with _silent():
        assert float(astjax.jit(loop_target_is_global)(1.0)) == 16.0
    assert LAST_I == 3


def _helper():
    return SCALE


def helper_sees_the_new_value(x):
    global SCALE
    SCALE = 5.0
    return x * _helper()


def test_a_helper_reads_the_value_just_stored():
    global SCALE
    try:
        with _silent():
            assert float(astjax.jit(helper_sees_the_new_value)(2.0)) == 10.0
        assert SCALE == 5.0
    finally:
        SCALE = 2.0


def stores_staged_value(x):
    global SCALE
    SCALE = x * 2
    return x


def stores_staged_element(x):
    global PAIR
    PAIR, y = (1.0, x * 3)
    PAIR, y = (x, 1.0)
    return y


@pytest.mark.parametrize("transform", [astjax.jit, astjax.grad, astjax.vmap])
def test_staged_value_into_a_global_is_a_located_error(transform):
    with pytest.raises(EscapedTracerError) as e:
        transform(stores_staged_value)(jnp.ones(()) if transform is astjax.grad
                                       else jnp.ones(2))
    err = e.value
    assert isinstance(err, TypeError) and isinstance(err, AstjaxError) and err.hint
    assert err.loc.line == _line(stores_staged_value, "SCALE = x * 2")
    assert "global `SCALE`" in str(err)
    assert SCALE == 2.0   # the module never saw the staged value


def test_staged_element_of_an_unpacked_tuple():
    global PAIR
    PAIR = None
    with _silent(), pytest.raises(EscapedTracerError) as e:
        astjax.jit(stores_staged_element)(1.0)
    assert e.value.loc.line == _line(stores_staged_element, "PAIR, y = (x, 1.0)")
    assert PAIR == 1.0


def stores_under_staged_if(x):
    global SCALE
    if x > 0:
        SCALE = 3.0
    return x * SCALE


def stores_under_staged_while(x):
    global COUNT
    while x < 10.0:
        COUNT += 1
        x = x * 2
    return x


@pytest.mark.parametrize("fn, text", [(stores_under_staged_if, "SCALE = 3.0"),
                                      (stores_under_staged_while, "COUNT += 1")])
def test_store_under_a_staged_test_is_a_located_error(fn, text):
    global COUNT
    COUNT = 0
    with pytest.raises(ConcretizationError) as e:
        astjax.jit(fn)(1.0)
    assert isinstance(e.value, TypeError)
    assert "global" in str(e.value) and e.value.hint
    line = _line(fn, text)
    assert (e.value.loc.line == line if fn is stores_under_staged_if
            else f"line {line}" in str(e.value))
    assert SCALE == 2.0 and COUNT == 0
    # a static test runs Python's own path
    assert fn(1.0) == (3.0 if fn is stores_under_staged_if else 16.0)
    globals().update(SCALE=2.0, COUNT=0)


def nested_function_with_its_own_global(x):
    def bump():
        global COUNT
        COUNT += 1
        return COUNT
    COUNT = 7.0                # a local: the nested function declared the global
    return x * bump() + COUNT


def test_nested_function_global_scope():
    global COUNT
    COUNT = 0
    with _silent():
        assert float(astjax.jit(nested_function_with_its_own_global)(2.0)) == 9.0
    assert COUNT == 1


def declares_global_inside_a_branch(x):
    if x.shape[0] > 0:
        global COUNT
        COUNT = 1
    COUNT = COUNT + 1          # still the module's: `global` covers the whole function
    return x * COUNT


def test_global_statement_nested_in_a_block():
    global COUNT
    COUNT = 0
    with _silent():
        np.testing.assert_allclose(astjax.jit(declares_global_inside_a_branch)(jnp.ones(2)),
                                   [2.0, 2.0])
    assert COUNT == 2
