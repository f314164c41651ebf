"""Regression tests for what the control-flow fuzzer's default-off constructs
(tests/fuzz/gen.py, `CONSTRUCTS`) found in the front end: each a minimal program run by
Python and by astjax (jit, grad where it is differentiable), or the located error
astjax raises before anything runs for a form it cannot stage."""
import contextlib

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import UnsupportedSyntaxError

X = np.array([0.1, 0.2, 0.3])


# ---- `:=` in a `while` test: the binding is loop state (it was a local of the test
# function: UnboundLocalError)
def walrus_while(x, n):
    k = 0
    while (k := k + 1) < n:
        if x[0] > 5:
            continue
        x = jnp.sin(x) + 0.1
        if x[1] > 10:
            break
    else:
        x = x + k
    return x * k


def walrus_while_staged(x):
    k = 0.0
    while (k := k + jnp.sum(x)) < 3.0:
        x = x * 1.5
    return x * k


def walrus_and(x):
    # the first operand of `and` always runs: it binds where Python binds it
    k = 0
    while (k := k + 1) < 4 and jnp.sum(x) > -10:
        x = jnp.sin(x) + 0.1
    return x * k


@pytest.mark.parametrize("fn, args", [(walrus_while, (X, 3)), (walrus_while, (X, 0)),
                                      (walrus_while_staged, (X,)), (walrus_and, (X,))],
                         ids=["static", "zero_trips", "staged", "and"])
def test_walrus_in_while_test(fn, args):
    with astjax.enable_x64():   # the reference: Python running the same code eagerly
        want = np.asarray(fn(*args), dtype=np.float64)
        got = astjax.jit(fn)(*args)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def test_walrus_in_while_test_grad():
    # d/dx of walrus_while_staged against central differences
    loss = lambda x: jnp.sum(walrus_while_staged(x))  # noqa: E731
    with astjax.enable_x64():
        g = np.asarray(astjax.grad(loss)(X))
        h = 1e-6
        fd = [(loss(X + h * e) - loss(X - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-5)


# ---- a chained comparison evaluated its middle operand twice (`0 < next(it) < 5`
# advanced the iterator twice: a silent difference)
def chained(x, it):
    if 0 < next(it) < 5:
        x = x + 1
    return x + next(it)


def chained_staged(x):
    return jnp.where(-1.0 < jnp.sum(x) < 1.0, x, -x) if x.ndim == 1 else x


def test_chained_comparison_evaluates_each_operand_once():
    with astjax.enable_x64():
        want = chained(X, iter([1, 2, 3, 4]))
    got = astjax.jit(lambda x: chained(x, iter([1, 2, 3, 4])))(X)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


@pytest.mark.parametrize("x", [X, X * 10])
def test_chained_comparison_staged(x):
    with astjax.enable_x64():
        np.testing.assert_allclose(np.asarray(astjax.jit(chained_staged)(x)),
                                   np.asarray(chained_staged(x)))


# ---- `:=` where Python evaluates it only sometimes: a located error at the `:=`
def walrus_right_operand(x):
    if jnp.sum(x) > 0 and (k := jnp.sum(x)) > 0.5:
        x = x * k
    return x


def walrus_ifexp_branch(x):
    return (k := x) * 2 if jnp.sum(x) > 0 else x


def walrus_chain_tail(x):
    return 0 < jnp.sum(x) < (k := 3)


@pytest.mark.parametrize("fn", [walrus_right_operand, walrus_ifexp_branch, walrus_chain_tail])
def test_walrus_in_lazy_operand_is_located(fn):
    with pytest.raises(UnsupportedSyntaxError) as e:
        astjax.jit(fn)(X)
    assert ":=" in str(e.value) and e.value.loc.line is not None


# ---- `break` / `continue` / `return` in a `try`'s handler, `else` or `finally` were
# left in place (a SyntaxError once the loop body became a function); the analyses now
# follow a `try`'s paths (the `else` and `finally` blocks had no liveness at all)
def except_break(x, s):
    lst = [1, 2]
    for i in range(4):
        try:
            v = lst[i]
        except IndexError:
            break
        x = x * 0.9 + v * 0.1
    return x


def finally_continue(x, s):
    for i in range(3):
        try:
            x = x * 0.9
        finally:
            if i == 1:
                continue
        x = x + s
    return x


def else_return(x, s):
    for i in range(3):
        try:
            x = x * 0.9
            if x[0] > s:
                x = x + 1
        except ValueError:
            return x
        else:
            if i == 2:
                return x * 3
        x = x + s
    return x


def finally_break_staged(x, s):
    k = 0
    while k < 3:
        k += 1
        try:
            x = jnp.sin(x)
        finally:
            if x[0] > s:
                break
    return x * k


def finally_reads_branch(x, s):
    try:
        if s > 0:
            v = x * 2
        else:
            v = x * 3
    finally:
        u = v + 1
    return u


@pytest.mark.parametrize("fn", [except_break, finally_continue, else_return,
                                finally_break_staged, finally_reads_branch])
@pytest.mark.parametrize("s", [0.05, -0.05])
def test_jumps_in_try_blocks(fn, s):
    with astjax.enable_x64():
        want = np.asarray(fn(X, s))
        got = np.asarray(astjax.jit(fn)(X, s))
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---- an exception the user's code raises on a path only a staged test reaches was
# raised while staging, for every input: caught by `except ValueError:` around the
# `if`, its handler ran on every input (a silent difference); now a located
# ConcretizationError (JAX: TracerBoolConversionError at the `if`)
def raise_in_staged_branch(x, s):
    try:
        if x[0] > s:
            raise ValueError("too big")
        y = x * 2
    except ValueError:
        y = x
    return y


def test_raise_under_staged_test_is_located():
    with pytest.raises(astjax.errors.ConcretizationError) as e:
        astjax.jit(raise_in_staged_branch)(X, 0.5)
    assert "ValueError: too big" in str(e.value) and e.value.loc.line is not None


def test_raise_under_static_test_is_python():
    # a static test: only the taken branch runs, as in Python
    def f(x):
        if x.shape[0] > 2:
            raise ValueError("static")
        return x
    with pytest.raises(ValueError, match="static"):
        astjax.jit(f)(X)


# ---- fuzz seed 4700035: a `with ... as w:` in a staged branch inside a loop; liveness
# kept `w` live before the `with` (the body reads it, `as` binds it first), so it was
# loop state assigned in one branch only: a false UndefinedVariableError
def with_as_in_staged_branch(x, s):
    for i in range(3):
        if s > 0.5:
            with contextlib.nullcontext(x[0]) as w:
                s = w
        x = x + s
    return x


# ---- fuzz seed 4700070: `if (t := v) > c:` with a staged test, `t` read in the branch;
# the analyses did not count the test's binding before the branches, so `t` entered
# them undefined: a false UndefinedVariableError
def walrus_if(x, s):
    if (t := jnp.sum(x) * 0.3) > s:
        t *= 1.2
        x = x * 0.5 + t * 0.2
    return x + t


@pytest.mark.parametrize("fn", [with_as_in_staged_branch, walrus_if])
@pytest.mark.parametrize("s", [0.1, 0.7])
def test_names_bound_before_a_staged_branch(fn, s):
    with astjax.enable_x64():
        want = np.asarray(fn(X, s))
        got = np.asarray(astjax.jit(fn)(X, s))
    np.testing.assert_allclose(got, want, rtol=1e-12)
