"""Findings of the twentieth session's program fuzzer seeds and bad-input cases, each
pinned with plain Python's (so JAX's) answer or error class written out: no JAX needed
to run them."""
import sys

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError


def _closure_reads_before_assignment(x):
    def g():
        return y + x
    z = g()
    y = x
    return z


def _closure_in_lambda(x):
    g = lambda: y * x  # noqa: E731
    z = g()
    y = x
    return z


def _comprehension_reads_cell(x):
    def g():
        return y
    zs = [y for _ in range(2)]
    y = x
    return g() + zs[0]


def _own_read_before_assignment(x):
    def g():
        return y
    w = y  # noqa: F841 -- unbound: the closure's cell is not bound yet
    y = x
    return g() + x


def _nonlocal_augmented_before_binding(x):
    def g():
        nonlocal y
        y += x
        return y
    r = g()
    y = x
    return r


def _bound_before_call(x):
    def g():
        return y * 2
    y = x + 1
    return g()


def _bound_on_an_earlier_trip(x):
    for i in range(2):
        if i == 1:
            r = y * x  # noqa: F821 -- bound by trip 0
        y = x + i
    return r


def _closure_reads_an_earlier_trip(x):
    total = 0.0
    for i in range(3):
        def g():
            return y * x
        if i > 0:
            total = total + g()
        y = x + i
    return total


def _located(e):
    assert isinstance(e.value, AstjaxError)
    text = str(e.value)
    assert "test_fuzz_findings8.py:" in text and "^" in text and "hint:" in text, text


@pytest.mark.parametrize("fn", [_closure_reads_before_assignment, _closure_in_lambda,
                                _nonlocal_augmented_before_binding])
def test_free_variable_read_unbound_is_name_error(fn):
    # Python: NameError "cannot access free variable 'y' where it is not associated
    # with a value in enclosing scope" -- not an UnboundLocalError
    with pytest.raises(NameError, match="cannot access free variable 'y' where it is not "
                       "associated with a value in enclosing scope") as e:
        astjax.jit(fn)(np.float32(1))
    assert not isinstance(e.value, UnboundLocalError)
    _located(e)


def test_comprehension_read_of_unbound_cell():
    # before 3.12 the comprehension is its own scope: the free-variable NameError;
    # from 3.12 it is inlined: the local-variable UnboundLocalError
    with pytest.raises(NameError) as e:
        astjax.jit(_comprehension_reads_cell)(np.float32(1))
    assert isinstance(e.value, UnboundLocalError) == (sys.version_info >= (3, 12))
    _located(e)


def test_own_read_of_unbound_cell_is_unbound_local_error():
    # was a silent 2.0: the cell's placeholder flowed into `w` unchecked
    with pytest.raises(UnboundLocalError, match="cannot access local variable 'y' where "
                       "it is not associated with a value") as e:
        astjax.jit(_own_read_before_assignment)(np.float32(1))
    _located(e)


def test_closure_called_after_binding_still_runs():
    assert float(astjax.jit(_bound_before_call)(np.float32(1))) == 4.0
    assert float(astjax.grad(_bound_before_call)(np.float32(1))) == 2.0


@pytest.mark.parametrize("fn, want", [(_bound_on_an_earlier_trip, 4.0),
                                      (_closure_reads_an_earlier_trip, 10.0)])
def test_loop_reading_a_name_an_earlier_trip_binds(fn, want):
    # the loop over a static range is a Python loop in JAX: trip 1 reads trip 0's `y`
    # (was a located UnboundLocalError / NameError from the staged trial's one trace)
    assert float(astjax.jit(fn)(np.float32(2))) == want


def test_constructs5_is_off_by_default():
    # a family on by default would change every documented seed range's programs
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz.gen import DEFAULT_OFF, generate
    from fuzz.gen_constructs5 import CONSTRUCTS5
    assert set(CONSTRUCTS5) <= set(DEFAULT_OFF)
    marks = ("*rest", ":= ", "for k", "def g")   # a construct of the family in the text
    plain = [generate(seed).render("jax") for seed in range(30)]
    assert not any("*rest" in t for t in plain)
    enabled = [generate(seed, enabled=CONSTRUCTS5).render("jax") for seed in range(30)]
    assert all(any(m in t for t in enabled) for m in marks)


def test_class_state_static_test_stays_static():
    # fuzz seed 9500209 (constructs4): `class_state`'s static `if` around `o.v = ...`
    # drew a staged `and` operand (`x.ndim == 1 and jnp.sum(x) > -0.4`), a program JAX
    # rejects (a staged `if`); astjax's located error was counted as a crash
    import re
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz.gen import generate
    from fuzz.gen_constructs4 import CONSTRUCTS4
    static = re.compile(r"x\.shape\[0\] [>=]+ 2|len\(p\) == 2|x\.ndim [>=]= 1|and|or|not|[()\s]")
    text = generate(9500209, enabled=CONSTRUCTS4).render("jax").splitlines()
    tests = [a.strip()[3:-1] for a, b in zip(text, text[1:])
             if a.strip().startswith("if ") and re.search(r"o\d+\.v = o\d+\.v \* 0\.5", b)]
    assert tests and all(not static.sub("", t) for t in tests), tests
