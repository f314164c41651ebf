"""Findings of the twenty-first session's program fuzzer seeds and bad-input cases, each
pinned with plain Python's (so JAX's) answer or error class written out: no JAX needed
to run them."""
import contextlib
import sys
from pathlib import Path

import pytest

import astjax


def _fuzz():
    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz import gen, gen_constructs6
    return gen, gen_constructs6


def test_constructs6_is_off_by_default():
    # a family on by default would change every documented seed range's programs
    gen, c6 = _fuzz()
    assert set(c6.CONSTRUCTS6) <= set(gen.DEFAULT_OFF)
    marks = ("with Sw6(", "except ", "def g", "Bag6(")   # the family's constructs
    plain = [gen.generate(seed).render("jax") for seed in range(30)]
    assert not any(m in t for t in plain for m in ("Sw6", "Bag6", "except "))
    enabled = [gen.generate(seed, enabled=c6.CONSTRUCTS6).render("jax") for seed in range(60)]
    assert all(any(m in t for t in enabled) for m in marks)


class _SwallowAll:
    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        return True


class _SwallowValueError:
    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        return et is not None and issubclass(et, ValueError)


def _swallowed_raise_keeps_earlier_trip(x):
    y = x
    for i in range(3):
        with _SwallowAll():
            if i == 2:
                raise ValueError
            y = x * i
        x = x + y
    return x


def _swallowed_raise_read_after_loop(x):
    for i in range(3):
        with _SwallowAll():
            if i == 2:
                raise ValueError
            y = x * i
    return y


def _handler_catches_every_exception(x):
    y = x
    for i in range(3):
        try:
            if i == 2:
                raise ValueError
            y = x * i
        except Exception:
            pass
        x = x + y
    return x


def _swallowed_value_error_read_in_loop(x):
    for i in range(3):
        with _SwallowValueError():
            if i == 2:
                raise ValueError
            y = x * i
        x = x + y
    return x


def _raises_on_trip_two(x, i):
    if i == 2:
        raise ValueError
    return x * i


def _suppressed_helper_raise(x):
    y = x
    for i in range(3):
        with contextlib.suppress(ValueError):
            y = _raises_on_trip_two(x, i)   # (no `raise` in the `with` body itself)
        x = x + y
    return x


@pytest.mark.parametrize("fn, want", [
    (_swallowed_raise_keeps_earlier_trip, 3.0), (_swallowed_raise_read_after_loop, 1.0),
    (_handler_catches_every_exception, 3.0), (_swallowed_value_error_read_in_loop, 3.0),
    (_suppressed_helper_raise, 3.0)])
def test_a_raise_user_code_swallows_in_a_static_loop(fn, want):
    # the `with` / `except` swallowing a `raise` on trip 2 of a loop over a static range
    # (a Python loop in JAX: trip 2 keeps trip 1's `y`). Was: the loop's one staged
    # trial raised astjax's error for the `raise` under the staged index test, the
    # user's handler swallowed it, and the trial stood for every trip -- 4.0 / 2.0,
    # silently -- or `y` was not carried (the `with` body's liveness ignored that
    # `__exit__` may go on after a `raise`): Python's UnboundLocalError
    assert fn(1.0) == want
    assert float(astjax.jit(fn)(1.0)) == want


def _handler_catches_a_staged_raise(x):
    try:
        if x < 0:
            raise ValueError("negative")
        y = x * 2
    except Exception:
        y = x * 3
    return y


def _handler_catches_int_of_staged(x):
    try:
        k = int(x)
    except Exception:
        k = 5
    return x * k


@pytest.mark.parametrize("fn, eager, staged", [(_handler_catches_a_staged_raise, 2.0, 3.0),
                                               (_handler_catches_int_of_staged, 1.0, 5.0)])
def test_eager_derivative_of_a_handler_catching_a_staging_error(fn, eager, staged):
    # JAX runs an eager grad / jvp / vjp on concrete values: `x < 0` and `int(x)` are
    # Python's, the handler does not run (JAX: 2.0 and 1.0); under jit they raise and
    # the handler runs (3.0 and 5.0). Was: the handler caught astjax's staging error
    # in the eager transforms too -- 3.0 and 5.0, silently
    assert float(astjax.grad(fn)(1.0)) == eager
    assert float(astjax.jvp(fn, (1.0,), (1.0,))[1]) == eager
    assert float(astjax.vjp(fn, 1.0)[0]) == eager
    assert float(astjax.jit(fn)(1.0)) == staged
    assert float(astjax.jit(astjax.grad(fn))(1.0)) == staged
