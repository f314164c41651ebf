"""Bad input gets an AstjaxError subclass that names file:line:col, shows the
source line with a caret, and gives a hint."""
import inspect
import re

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import (ArgumentError, AstjaxError, ShapeError, ShapeValueError,
                           SourceNotFoundError, UnsupportedSyntaxError)


def _line_of(fn, text):
    """Absolute line number of the first source line of `fn` containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i, line.rstrip("\n")
    raise AssertionError(text)


def _check_located(err, fn, text, col_text=None):
    """The message starts with file:line:col, then the source line, then a caret
    under `col_text` (default: `text`), and has a hint."""
    line_no, line = _line_of(fn, text)
    col = line.index(col_text or text)
    msg = str(err)
    head, src, caret = msg.splitlines()[:3]
    assert head == f"{__file__}:{line_no}:{col + 1}", msg
    assert src.strip() == line.strip(), msg
    indent = len(src) - len(src.lstrip())
    assert caret.strip().startswith("^") and set(caret.strip()) == {"^"}, msg
    assert len(caret) - len(caret.lstrip()) == indent + (col - (len(line) - len(line.lstrip()))), msg
    assert f"{type(err).__name__}: " in msg
    assert "\nhint: " in msg and err.hint
    assert err.loc.file == __file__ and err.loc.line == line_no


# ------------------------------------------------------------------ unsupported syntax

def uses_yield(x):
    y = x + 1
    yield y


def uses_async(x):
    async def inner():
        return 1
    return x


def test_a_generator_function_is_jaxs_type_error():
    # JAX 0.10.2: TypeError "Expected a function, got a generator function" from jit,
    # grad, vmap and make_jaxpr (astjax raised its located `yield` UnsupportedSyntaxError)
    for wrap in (astjax.jit, astjax.grad, astjax.vmap, astjax.make_jaxpr):
        with pytest.raises(TypeError, match="generator function") as info:
            wrap(uses_yield)(1.0)
        assert isinstance(info.value, AstjaxError)


@pytest.mark.parametrize("fn,text,word", [
    (uses_async, "async def inner", "async"),
])
def test_unsupported_syntax(fn, text, word):
    with pytest.raises(UnsupportedSyntaxError) as info:
        astjax.jit(fn)(1.0)
    _check_located(info.value, fn, text)
    assert word in str(info.value)
    with pytest.raises(UnsupportedSyntaxError):
        astjax.make_jaxpr(fn)(1.0)


def test_errors_are_astjax_errors_and_short():
    with pytest.raises(AstjaxError) as info:
        astjax.jit(uses_yield)(1.0)
    # the traceback is cut at the API boundary: no frames from astjax internals
    tb = info.tb
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert not any("/astjax/frontend/" in f for f in frames)

# -------------------------------------------------------------------- bad arguments


def plus_one(x):
    return x + 1


@pytest.mark.parametrize("bad", ["a string", object(), np.array(["a", "b"]), {1, 2}])
def test_non_array_argument(bad):
    with pytest.raises(ArgumentError) as info:
        astjax.jit(plus_one)(bad)
    msg = str(info.value)
    assert "is not an array" in msg and "hint:" in msg
    # located at the caller's line (this file)
    assert msg.startswith(f"{__file__}:"), msg
    assert "astjax.jit(plus_one)(bad)" in msg


def test_non_array_inside_pytree():
    with pytest.raises(ArgumentError, match="str"):
        astjax.jit(plus_one)({"a": np.ones(2), "b": "nope"})


def test_non_array_result():
    def returns_string(x):
        return "hello"
    with pytest.raises(ArgumentError, match="not an array"):
        astjax.jit(returns_string)(1.0)

# ------------------------------------------------------------------- shape errors


def bad_dot(x, y):
    z = jnp.dot(x, y)
    return z


def bad_add(x, y):
    h = x * 2
    z = h + y
    return z


def bad_matmul(x, y):
    return x @ y


def test_dot_shape_mismatch_located():
    x, y = np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)
    with pytest.raises(ShapeError) as info:
        astjax.jit(bad_dot)(x, y)
    _check_located(info.value, bad_dot, "jnp.dot(x, y)")
    assert "(2, 3)" in str(info.value)


def test_add_shape_mismatch_located():
    x, y = np.ones((2, 3), np.float32), np.ones((4,), np.float32)
    with pytest.raises(ShapeValueError) as info:  # ranks differ: a ValueError, as JAX
        astjax.jit(bad_add)(x, y)
    _check_located(info.value, bad_add, "h + y")
    assert re.search(r"\(2, 3\).*\(4,\)", str(info.value))


def test_matmul_shape_mismatch_located():
    with pytest.raises(ShapeError) as info:
        astjax.make_jaxpr(bad_matmul)(np.ones((2, 3)), np.ones((4, 5)))
    _check_located(info.value, bad_matmul, "x @ y")


def test_shape_error_in_helper_points_at_helper():
    def caller(x, y):
        return bad_dot(x, y) + 1
    with pytest.raises(ShapeError) as info:
        astjax.jit(caller)(np.ones((2, 3)), np.ones((5, 3)))
    _check_located(info.value, bad_dot, "jnp.dot(x, y)")

# ------------------------------------------------------------------- no source


def test_function_without_source():
    """Traced as JAX traces it, with a warning (tests/test_frontend_sourceless.py)."""
    from astjax.errors import NoSourceWarning
    ns = {}
    exec("def g(x):\n    return x * 2\n", ns)
    with pytest.warns(NoSourceWarning, match="`g`"):
        assert float(astjax.jit(ns["g"])(1.0)) == 2.0
    f = eval("lambda x: x + 1")
    with pytest.warns(NoSourceWarning):
        assert "add" in str(astjax.make_jaxpr(f)(1.0))

# ------------------------------------------------------ staged value used as static


def test_concretization_error_is_located():
    def f(x):
        n = int(x)
        return jnp.ones(n)
    with pytest.raises(astjax.errors.ConcretizationError) as info:
        astjax.jit(f)(3)
    _check_located(info.value, f, "int(x)")
