"""The printed source's per-line contract (issue 12, R11): every assignment the printer
emits, run eagerly, gives a value with the abstract value (shape, dtype) of the IR
variable it stands for. The check runs the printed function twice with a recorder
after each assignment: eagerly, and staged again by `jit` (the round trip stages the
same IR, so the staged recording is the IR variable's aval). A line whose eager value
is a Python bool where the IR has `bool[]` (`not x`), or an int64 where the IR has an
int32 loop counter, fails here before a later line trips over it."""
import ast

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core
from astjax.source_api import _generate, compile_source

import functions as F


# What each recorder saw, kept outside the recorder: recording from both branches of a
# staged `if` is this instrument's purpose, and a Python object a staged branch changes
# is (rightly) a located error for user code (frontend/object_effects.py)
_SEEN: dict = {}


class _Recorder:
    """Called as `__aval_check(line, value)` after each printed assignment; not a
    Python function, so staging calls it as is (it is not converted)."""

    def __init__(self):
        _SEEN[id(self)] = {}

    @property
    def seen(self):
        return _SEEN[id(self)]

    def __call__(self, line, value):
        if not isinstance(value, (list, tuple, dict)):
            a = core.get_aval(value)
            _SEEN[id(self)].setdefault(line, set()).add((tuple(a.shape), str(a.dtype)))
        return None


def _instrument(src, rec):
    tree = ast.parse(str(src))

    class Add(ast.NodeTransformer):
        def visit_Assign(self, node):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                return node
            name = node.targets[0].id
            check = ast.Expr(ast.Call(func=ast.Name("__aval_check", ast.Load()),
                                      args=[ast.Constant(f"{node.lineno}: {name}"),
                                            ast.Name(name, ast.Load())], keywords=[]))
            return [node, check]
    tree = ast.fix_missing_locations(Add().visit(tree))
    out = type(src)(ast.unparse(tree) + "\n")
    out.globals = dict(src.globals, __aval_check=rec)
    out.name, out.closed = src.name, getattr(src, "closed", None)
    return compile_source(out)


def _check(fn, *args, some=True):
    eager, staged = _Recorder(), _Recorder()
    src = _generate(fn, args, {})
    _instrument(src, eager)(*args)
    astjax.jit(_instrument(src, staged))(*args)
    bad = {line: (sorted(avals), sorted(staged.seen[line])) for line, avals in eager.seen.items()
           if line in staged.seen and avals != staged.seen[line]}
    assert not bad, f"eager vs IR avals differ:\n{bad}\n{src}"
    assert eager.seen or not some, "nothing was recorded"


def _break_loop(x):
    for i in range(2):
        if i > 0:
            break
        x = jnp.tanh(x)
    return jnp.sum(x)


def _column_sums(y):
    s = 0.0
    for i in range(y.shape[1]):
        s = s + jnp.sum(y[:, i])
    return s


def _counter_arithmetic(x):
    for i in range(3):
        x = x * 0.5 + (i + 1) * 0.25
        if i > 1:
            x = -x
    return jnp.sum(x)


@pytest.mark.parametrize("fn", [_break_loop, _counter_arithmetic])
def test_printed_grad_lines_have_their_ir_avals(fn, x64):
    _check(astjax.grad(fn), np.array([0.1, 0.2]))


def test_printed_loop_counter_index_has_its_ir_dtype(x64):
    y = np.arange(6.0).reshape(2, 3)
    _check(_column_sums, y)
    np.testing.assert_allclose(astjax.source_function(_column_sums, y)(y), 15.0)


@pytest.mark.parametrize("case", [c for c in F.CASES if not c.static_argnums],
                         ids=lambda c: c.name)
def test_printed_collection_lines_have_their_ir_avals(case):
    _check(astjax.jit(case.fn), *case.args, some=False)   # some print no assignment


def _carry_overwritten(x, w):
    b = x[0]
    for r in w:                   # b's old value is never read: its cotangent carry is 0.0
        b = jnp.tanh(jnp.mean(x) + r)
    return jnp.sum(x * b)


@pytest.mark.parametrize("wide", [False, True])
def test_printed_loop_carry_set_to_a_constant_is_an_array(wide):
    # a carry's new value that is a literal prints typed (np.float64(0.0)), not as a
    # Python float that a later `.reshape` fails on
    old = astjax.config.read("jax_enable_x64")
    astjax.config.update("jax_enable_x64", wide)
    try:
        x, w = np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.5])
        g = astjax.source_function(astjax.grad(_carry_overwritten), x, w)
        want = astjax.grad(_carry_overwritten)(x, w)
        np.testing.assert_allclose(g(x, w), want, rtol=1e-6)
        np.testing.assert_allclose(astjax.jit(g)(x, w), want, rtol=1e-6)
    finally:
        astjax.config.update("jax_enable_x64", old)
