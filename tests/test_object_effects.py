"""Loop bodies whose staging depends on Python state a scan cannot repeat
(`frontend/object_effects.py`): objects reached through module globals, and state kept
where no snapshot sees it (a `random.Random`, NumPy's global generator, iterators).
Each program is compared with plain Python (`jnp` bound to NumPy) under `jit`, `grad`
and `vmap`; a staged trip count is a located error."""
import itertools
import random
import types

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors


def _python(fn):
    """`fn` with `jnp` bound to NumPy: the reference."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "jnp": np}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


def _at(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k, line.index(text)
    raise AssertionError(text)


X = np.array([0.5, 1.5], np.float32)


def _grad_fd(fn, x, reset, eps=1e-3):
    """Central differences of sum(fn) in float64 (after `reset` of the global state)."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    py = _python(fn)
    for k in range(x.size):
        d = np.zeros_like(x)
        d[k] = eps
        reset()
        hi = np.sum(py(x + d))
        reset()
        lo = np.sum(py(x - d))
        g[k] = (hi - lo) / (2 * eps)
    return g


# ------------------------------------------------------ objects reached through a global

class _Acc:
    def __init__(self):
        self.total = 0.0
        self.items = []

    def accumulate(self, v):
        self.total = self.total + v

    def push(self, v):
        self.items.append(v)


ACC = _Acc()
LOG = []


def _reset_globals():
    ACC.total, ACC.items = 0.0, []
    LOG.clear()


def global_object_method(x):
    ACC.total = 0.0
    for i in range(3):
        ACC.accumulate(x * i)
    return ACC.total


def global_object_pushes(x):
    ACC.items = []
    for i in range(3):
        ACC.push(x * (i + 1))
    return jnp.stack(ACC.items).sum(0)


def _accumulate(v):
    ACC.accumulate(v)


def global_object_through_a_helper(x):
    ACC.total = 0.0
    for i in range(4):
        _accumulate(jnp.sin(x) * i)
    return ACC.total


def _log(v):
    LOG.append(v)


def global_list_through_a_helper(x):
    del LOG[:]
    for i in range(3):
        _log(x * i)
    return jnp.stack(LOG).sum(0)


GLOBAL_PROGRAMS = [global_object_method, global_object_pushes, global_object_through_a_helper,
                   global_list_through_a_helper]


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")
@pytest.mark.parametrize("fn", GLOBAL_PROGRAMS)
def test_object_reached_through_a_global_changes_on_every_trip(fn):
    # was: the loop scanned, the global kept one staged value of the body, and the
    # return read it (EscapedTracerError); JAX traces the loop and answers
    _reset_globals()
    want = _python(fn)(X)
    _reset_globals()
    np.testing.assert_allclose(astjax.jit(fn)(X), want, rtol=1e-6)
    _reset_globals()
    np.testing.assert_allclose(astjax.grad(lambda v: fn(v).sum())(X),
                               _grad_fd(fn, X, _reset_globals), rtol=1e-3)
    xs = np.stack([X, 2 * X])
    _reset_globals()
    want_v = np.stack([_python(fn)(r) for r in xs])
    _reset_globals()
    np.testing.assert_allclose(astjax.vmap(fn)(xs), want_v, rtol=1e-6)


SCALE = _Acc()
SCALE.total = 2.0


def global_object_only_read(x):
    for i in range(5):
        x = x * SCALE.total
    return x


def test_object_only_read_through_a_global_still_scans():
    assert "scan" in str(astjax.make_jaxpr(global_object_only_read)(X))
    np.testing.assert_allclose(astjax.jit(global_object_only_read)(X), 32 * X)


def global_object_in_a_staged_range(x, n):
    for i in range(n):
        ACC.accumulate(x)
    return x


def test_global_object_changed_in_a_loop_with_a_staged_trip_count_is_located():
    # JAX: range(n) of a traced n is a TypeError; the object is left as it was
    _reset_globals()
    with pytest.raises(errors.ConcretizationError) as e:
        astjax.jit(global_object_in_a_staged_range)(X, 3)
    assert isinstance(e.value, TypeError) and "attribute `total`" in str(e.value)
    assert e.value.loc.line == _at(global_object_in_a_staged_range, "for i in")[0]
    assert ACC.total == 0.0
