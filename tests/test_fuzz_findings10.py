"""Findings of the twenty-second session's program fuzzer (fz21) and its hand probes of
the seventh construct family, each pinned with plain Python's answer or JAX's error
class written out: no JAX needed to run them."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError, ConcretizationError


def _fuzz():
    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz import gen, gen_constructs7
    return gen, gen_constructs7


def test_constructs7_is_off_by_default():
    # a family on by default would change every documented seed range's programs
    gen, c7 = _fuzz()
    assert set(c7.CONSTRUCTS7) <= set(gen.DEFAULT_OFF)
    marks = ("yield", "try:", "del ", 'f"', "match ", "**", "reversed(", " as e")
    plain = [gen.generate(seed).render("jax") for seed in range(30)]
    assert not any(m in t for t in plain for m in ("yield", "match ", 'f"'))
    enabled = [gen.generate(seed, enabled=c7.CONSTRUCTS7).render("jax") for seed in range(150)]
    assert all(any(m in t for t in enabled) for m in marks)


# `x is z` after a staged `if` that rebinds `x` on one path only: Python's answer
# depends on the path (true where the branch was not taken), and a staged `if` gives
# one new value for both paths, so `is` silently said False (x * 3 where Python gives
# x * 2). Now a located ConcretizationError (JAX raises TracerBoolConversionError at
# the `if`); where no path can make the two the same object Python's answer stands.

def _is_after_if(x):
    z = x
    if jnp.sum(x) > 5:
        x = x * 2
    return x * 2 if z is x else x * 3


def _is_after_both_branches(x):
    z = x
    if jnp.sum(x) > 5:
        x = x * 2
    else:
        x = x * 3
    return x * 2 if z is not x else x * 4


def _is_after_ifexp(x):
    z = x
    y = x * 2 if jnp.sum(x) > 0 else x
    return y if y is z else -y


def _same_name_after_if(x):
    if jnp.sum(x) > 5:
        x = x * 2
    y = x
    return y * 2 if y is x else y * 3


def _is_after_staged_range(x, n):
    z = x
    for i in range(n):
        x = x * 2
    return x * 2 if x is not z else x * 3


def _is_after_staged_while(x):
    z = x
    while jnp.sum(x) < 3:
        x = x + 1
    return x if x is z else -x


def _is_after_scan(x):
    # a loop over rows (a scan): every trip may leave `x` alone, so on some inputs it is
    # still the object it was before the loop
    z = x
    for r in x:
        if r > 5:
            x = x * 2
    return x * 2 if z is x else x * 3


@pytest.mark.parametrize("fn", [_is_after_if, _is_after_ifexp, _is_after_staged_while,
                                _is_after_scan])
def test_is_of_a_staged_choice_is_located_error(fn):
    with pytest.raises(ConcretizationError) as e:
        astjax.jit(fn)(np.ones(3, np.float32))
    assert isinstance(e.value, AstjaxError) and isinstance(e.value, TypeError)
    assert "depends on the path" in str(e.value)
    assert "is" in str(e.value).splitlines()[1]   # the caret line: the `is` comparison


def test_is_after_staged_range_is_located_error():
    with pytest.raises(ConcretizationError):
        astjax.jit(_is_after_staged_range)(np.ones(3, np.float32), 2)


def test_is_after_a_staged_if_where_python_knows():
    x = np.ones(3, np.float32)
    # both branches rebind x: never the old object (Python: x * 2 either way)
    np.testing.assert_allclose(astjax.jit(_is_after_both_branches)(x), x * 6)
    # two names of the one merged value: the same object on every path
    np.testing.assert_allclose(astjax.jit(_same_name_after_if)(x), x * 2)
    # eagerly the test is concrete: Python's own `is`
    np.testing.assert_allclose(_is_after_if(x), x * 2)


# two names bound to one object on every path (`b = a` in each branch, or before a
# loop and on every trip) were two staged values, so `a is b` silently said False;
# now they are one object. One object on one path only: a located error.

def _one_object_both_paths(x):
    if jnp.sum(x) > 0:
        a = x * 2
        b = a
    else:
        a = x * 3
        b = a
    return a if a is b else -a


def _one_object_one_path(x):
    if jnp.sum(x) > 0:
        a = x * 2
        b = a
    else:
        a = x * 3
        b = x * 4
    return a if a is b else -a


def _one_object_through_loop(x, n):
    a = x * 2
    b = a
    for i in range(n):
        a = a * 0.5
        b = a
    return a if a is b else -a


def test_one_object_for_two_names_stays_one():
    x = np.ones(3, np.float32)
    np.testing.assert_allclose(astjax.jit(_one_object_both_paths)(x), x * 2)
    np.testing.assert_allclose(astjax.jit(_one_object_through_loop)(x, 2), x * 0.5)
    np.testing.assert_allclose(astjax.grad(lambda x: jnp.sum(_one_object_both_paths(x)))(x),
                               np.full(3, 2.0))
    with pytest.raises(ConcretizationError):
        astjax.jit(_one_object_one_path)(x)


def _is_after_staged_and(x):
    # `t = c and b` is `c` or `b` itself in Python, as `c` decides when the function runs
    b = jnp.max(x)
    t = jnp.sum(x) > 0.5 and b
    return x * 2 if t is b else x * 3


def test_is_of_a_staged_and_is_located_error():
    with pytest.raises(ConcretizationError):
        astjax.jit(_is_after_staged_and)(np.ones(3, np.float32))
