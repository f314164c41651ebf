"""The front end's side-effect warning and host callbacks (issue 16).

A `.append` on a global list inside a function that runs on the host at run time
(a lambda or nested function passed to `jax.debug.callback` / `pure_callback` /
`io_callback`) is not a staging-time side effect: the callback runs on every call.
`frontend/converter.py` (`Converter._check_side_effect`) rewrites a mutating call on
a name the function does not own into `ag__.mutation(...)`, which warns only when it
runs while staging (`frontend/operators.py`), so the callback's run-time calls do not
warn and a mutation staged in the function's own body still does.
"""
import warnings

import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import SideEffectWarning

LOG = []


def uses_callbacks(x):
    astjax.debug.callback(lambda v: LOG.append(float(v)), x)
    y = astjax.pure_callback(lambda v: v * 2, astjax.ShapeDtypeStruct((), jnp.float32), x)
    return x + y


def mutates_global(x):
    LOG.append(x)
    return x * 2


def test_no_warning_for_host_callback_lambdas():
    LOG.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SideEffectWarning)
        astjax.jit(uses_callbacks)(1.0)
    assert LOG == [1.0]


def test_callbacks_run_every_call():
    LOG.clear()
    f = astjax.jit(uses_callbacks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SideEffectWarning)
        f(1.0)
        f(2.0)
    assert LOG == [1.0, 2.0]


def test_real_side_effect_still_warns():
    with pytest.warns(SideEffectWarning, match="LOG.append"):
        astjax.jit(mutates_global)(1.0)


def uses_named_callback(x):
    def log(v):
        LOG.append(float(v))
    astjax.debug.callback(log, x)
    return x + 1


def mutates_in_nested_helper(x):
    def stash(v):
        LOG.append(v)
    stash(x)  # called while staging: a staging-time side effect
    return x * 2


def stores_into_global(x):
    TABLE["x"] = x
    return x


TABLE = {}


def test_no_warning_for_a_nested_function_passed_to_a_callback():
    LOG.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SideEffectWarning)
        astjax.jit(uses_named_callback)(3.0)
    assert LOG == [3.0]


def test_mutation_in_a_nested_function_called_while_staging_warns():
    LOG.clear()
    with pytest.warns(SideEffectWarning, match="LOG.append") as w:
        astjax.jit(mutates_in_nested_helper)(1.0)
    assert any("test_callback_side_effect_warning.py" in str(r.message) for r in w)
    LOG.clear()


def test_store_into_a_global_dict_warns():
    with pytest.warns(SideEffectWarning, match=r"TABLE\[...\]"):
        astjax.jit(stores_into_global)(1.0)
    TABLE.clear()
