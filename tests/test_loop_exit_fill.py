"""A loop stopped by a jump flag: names a trip leaves undefined where it jumped are
allowed per exit flag (`ControlFlowConverter._fill`, `loop_ops._fillable`). A trip that
returns leaves the loop's `break` flag unassigned (its guarded `ag__break = True` never
ran): fuzz seed 1500299 raised a false UndefinedVariableError there. Each program is
compared with plain Python (`jnp` bound to NumPy) under `jit` (trip count staged),
`grad` and `vmap` (trip count static), over loops staged as a `while`, unrolled and
scanned, `while` loops with staged and static tests, nested loops, `return` under
static and staged tests, `break`/`continue` and `for/while ... else`."""
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


def seed_1500299(x, n):
    for i in range(1, n):
        if x.shape[0] > 1:      # static True: the first trip returns
            return x + i
        break
    else:
        pass
    return x * 2.0


def static_range_static_return(x, n):
    for i in range(1, 3):
        if x.shape[0] > 1:
            return x + i
        break
    else:
        x = x - 1.0
    return x * 2.0


def staged_while_static_return(x, n):
    i = 0
    while i < n:
        i += 1
        if x.shape[0] > 1:
            return x * i
        break
    else:
        x = x + 1.0
    return x * 2.0


def static_while_static_return(x, n):
    i = 0
    while i < 3:
        i += 1
        if x.shape[0] > 1:
            return x * i
        break
    else:
        x = x + 1.0
    return x * 2.0


def staged_return_then_break(x, n):
    for i in range(n):
        if x[0] > 1.0:
            return x + i
        if x[1] > 1.0:
            break
        x = x * 1.5
    else:
        x = x - 1.0
    return x * 2.0


def staged_while_staged_return_break(x, n):
    i = 0
    while i < n:
        i += 1
        if jnp.sum(x) > 4.0:
            return x * i
        if x[0] > 1.0:
            break
        x = x + 1.0
    else:
        x = x - 0.5
    return x * 2.0


def continue_then_static_return(x, n):
    for i in range(n):
        if i < 1:
            continue
        if x.shape[0] > 1:
            return x + i
        break
    return x * 3.0


def return_or_break_with_live_name(x, n):
    y = x
    for i in range(1, n):
        y = x * i
        if x.shape[0] > 1:
            return y + 1.0
        break
    return y * 2.0


def nested_inner_returns(x, n):
    for j in range(2):
        for i in range(1, n):
            if x.shape[0] > 1:
                return x + i + j
            break
        x = x + 1.0
    return x * 2.0


def nested_inner_breaks_outer_returns(x, n):
    for j in range(n):
        for i in range(n):
            if x.shape[0] > 1:
                break
            return x
        else:
            x = x - 1.0
        if x[0] > 1.0:
            return x * j
        x = x + 1.0
    return x


def nested_while_in_for(x, n):
    for j in range(n):
        k = 0
        while k < n:
            k += 1
            if x.shape[0] > 1:
                return x * (j + k)
            break
        x = x + 1.0
    return x - 1.0


PROGRAMS = [seed_1500299, static_range_static_return, staged_while_static_return,
            static_while_static_return, staged_return_then_break,
            staged_while_staged_return_break, continue_then_static_return,
            return_or_break_with_live_name, nested_inner_returns,
            nested_inner_breaks_outer_returns, nested_while_in_for]
X = np.array([0.5, 1.5], np.float32)
XS = np.array([[0.5, 1.5], [1.5, 0.5], [2.5, 2.5]], np.float32)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_loop_exits_under_jit_match_python(fn, n):
    py = _python(fn)
    for x in XS:
        np.testing.assert_allclose(astjax.jit(fn)(x, n), py(x.astype(np.float64), n),
                                   rtol=1e-6)


@pytest.mark.parametrize("n", [0, 3])
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_loop_exits_under_grad_and_vmap_match_python(fn, n):
    py = _python(fn)
    for x in XS:
        x64, g = x.astype(np.float64), np.zeros(2)
        for k in range(2):
            d = np.zeros(2)
            d[k] = 1e-3
            g[k] = (np.sum(py(x64 + d, n)) - np.sum(py(x64 - d, n))) / 2e-3
        np.testing.assert_allclose(astjax.grad(lambda v: fn(v, n).sum())(x), g,
                                   rtol=1e-3, atol=1e-3)
    want = np.stack([py(x.astype(np.float64), n) for x in XS])
    np.testing.assert_allclose(astjax.vmap(lambda v: fn(v, n))(XS), want, rtol=1e-6)


def break_deletes_a_live_name(x, n):
    y = x
    for i in range(n):
        del y
        break
    return y


def test_a_name_a_break_leaves_undefined_and_read_after_the_loop_stays_an_error():
    # the `break` row allows only names dead after the loop: `y` is read there
    with pytest.raises(errors.UndefinedVariableError):
        astjax.jit(break_deletes_a_live_name)(X, 2)
