"""Functions without retrievable source (`frontend/sourceless.py`): made by `exec` /
`eval` from a string, given to `python -c`, imported from a `.pyc`-only module, and
builtins / C functions / `functools.partial` of them, work under jit / grad / vmap
(traced, as JAX traces them, with one NoSourceWarning per function); Python control
flow on a staged value inside them is JAX's TracerBoolConversionError, located at
the function's own line."""
import functools
import operator
import os
import py_compile
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError, NoSourceWarning, TracerBoolConversionError


def _exec(text, name):
    ns = {"jnp": jnp, "lax": lax}
    exec(textwrap.dedent(text), ns)
    return ns[name]


def test_exec_function_under_jit_grad_vmap_warns_once():
    g = _exec("""
        def g_exec(x):
            y = jnp.sin(x) * 2.0
            for i in range(3):      # a static loop: traced, unrolled (as JAX)
                y = y + x * i
            return y
        """, "g_exec")
    with pytest.warns(NoSourceWarning, match="`g_exec`.*<string>") as w:
        y = astjax.jit(g)(1.0)
    assert len(w) == 1
    np.testing.assert_allclose(y, 2 * np.sin(1.0) + 3.0, rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoSourceWarning)   # once per function
        np.testing.assert_allclose(astjax.grad(g)(1.0), 2 * np.cos(1.0) + 3.0, rtol=1e-6)
        np.testing.assert_allclose(astjax.vmap(g)(jnp.arange(3.0)),
                                   2 * np.sin(np.arange(3.0)) + 3 * np.arange(3.0), rtol=1e-6)
        np.testing.assert_allclose(astjax.jit(astjax.grad(g))(0.5), 2 * np.cos(0.5) + 3,
                                   rtol=1e-6)


def test_eval_lambda_and_partial_of_exec_function():
    lam = eval("lambda x, y: x * x * y")
    with pytest.warns(NoSourceWarning):
        assert float(astjax.grad(lam)(3.0, 2.0)) == 12.0
    h = _exec("def h_exec(a, x):\n    return a * jnp.cos(x)\n", "h_exec")
    with pytest.warns(NoSourceWarning, match="h_exec"):
        np.testing.assert_allclose(astjax.grad(functools.partial(h, 3.0))(0.5),
                                   -3 * np.sin(0.5), rtol=1e-6)


@pytest.mark.parametrize("fun, args, grad", [
    (abs, (-2.0,), -1.0),
    (operator.mul, (2.0, 3.0), 3.0),
    (functools.partial(operator.mul, 2.0), (3.0,), 2.0),
    (pow, (2.0, 3.0), 12.0),
    (jnp.sin, (0.0,), 1.0),
    (np.tanh, (0.0,), 1.0),
])
def test_builtins_and_c_functions(fun, args, grad):
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoSourceWarning)  # they are not user code
        assert float(astjax.grad(fun)(*args)) == pytest.approx(grad)
        assert float(astjax.jit(fun)(*args)) == pytest.approx(fun(*args))
        batched = astjax.vmap(fun)(*[jnp.full(2, a) for a in args])
        np.testing.assert_allclose(batched, [fun(*args)] * 2, rtol=1e-6)


def test_staged_if_in_exec_function_is_located_error():
    h = _exec("""
        def h_if(x):
            if x.shape[0] > 1:     # static: fine when traced
                x = x * 2.0
            if x.sum() > 0:
                return x
            return -x
        """, "h_if")
    with pytest.warns(NoSourceWarning):
        with pytest.raises(TracerBoolConversionError) as e:
            astjax.jit(h)(jnp.ones(2))
    err = e.value
    assert isinstance(err, TypeError) and isinstance(err, AstjaxError)
    assert (err.loc.file, err.loc.line) == ("<string>", 5)
    assert "<string>:5:" in str(err) and "no source astjax can find" in err.hint
    assert "lax.cond" in err.hint


def _calls_exec_helper(x):
    return HELPER(x) + 1.0


HELPER = _exec("""
    def helper_exec(x):
        if x > 0:
            return x
        return -x
    """, "helper_exec")


def test_converted_function_calling_exec_helper():
    with pytest.warns(NoSourceWarning, match="helper_exec"):
        with pytest.raises(TracerBoolConversionError) as e:
            astjax.jit(_calls_exec_helper)(1.0)
    assert (e.value.loc.file, e.value.loc.line) == ("<string>", 3)
    assert "no source astjax can find" in e.value.hint
    ok = _exec("def ok_exec(x):\n    return x * 3.0\n", "ok_exec")

    def f(x):
        return ok(x) ** 2   # a closure: called through the converted code's `ag__.call`
    with pytest.warns(NoSourceWarning, match="ok_exec"):
        assert float(astjax.grad(f)(2.0)) == 36.0


def test_exec_branches_of_lax_cond():
    t = _exec("def t_exec(x):\n    return x + 1.0\n", "t_exec")
    f = _exec("def f_exec(x):\n    return x - 1.0\n", "f_exec")

    def g(p, x):
        return lax.cond(p, t, f, x)
    with pytest.warns(NoSourceWarning):
        assert float(astjax.jit(g)(True, 1.0)) == 2.0
        assert float(astjax.jit(g)(False, 1.0)) == 0.0


_SCRIPT = """
import warnings
import astjax, astjax.numpy as jnp
from astjax.errors import TracerBoolConversionError
def f(x):
    return jnp.sum(jnp.sin(x) * x)
def g(x):
    if x > 0:
        return x
    return -x
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(float(astjax.jit(f)(jnp.ones(3))), float(astjax.grad(f)(jnp.ones(3)).sum()),
          astjax.vmap(astjax.grad(f))(jnp.ones((2, 3))).shape)
    try:
        astjax.jit(g)(1.0)
    except TracerBoolConversionError as e:
        print("ERR", e.loc.file, e.loc.line)
print("WARN", sorted({str(x.message).split("`")[1] for x in w}))
"""


def _run(args, cwd=None):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    r = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300,
                       cwd=cwd, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.splitlines()


def test_python_dash_c():
    out = _run(["-c", _SCRIPT])
    v, g, shape = out[0].split(" ", 2)
    np.testing.assert_allclose(float(v), 3 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(float(g), 3 * (np.cos(1.0) + np.sin(1.0)), rtol=1e-6)
    assert shape == "(2, 3)"
    assert out[1] == "ERR <string> 8"
    assert out[2] == "WARN ['f', 'g']"


def test_pyc_only_module(tmp_path):
    src = tmp_path / "src_mod.py"
    src.write_text("import astjax.numpy as jnp\n\ndef f(x):\n    return jnp.exp(x) * x\n")
    py_compile.compile(str(src), cfile=str(tmp_path / "pyc_only_mod.pyc"))
    src.unlink()
    out = _run(["-c", "import warnings, astjax, pyc_only_mod\n"
                      "with warnings.catch_warnings(record=True) as w:\n"
                      "    warnings.simplefilter('always')\n"
                      "    print(float(astjax.grad(pyc_only_mod.f)(1.0)))\n"
                      "print(len(w), 'no source' in str(w[0].message))\n"], cwd=str(tmp_path))
    np.testing.assert_allclose(float(out[0]), 2 * np.e, rtol=1e-6)
    assert out[1] == "1 True"
