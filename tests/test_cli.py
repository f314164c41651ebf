"""`python -m astjax` inspection commands: jaxpr, source (--grad, --vmap), hlo
(--optimized), cost; bad FILE:FUNC, bad specs and functions that do not stage are one
`astjax: error:` line with exit status 2."""
import re
import subprocess
import sys
import textwrap

import pytest

from astjax.__main__ import main

MODEL = textwrap.dedent("""
    import astjax.numpy as jnp


    def loss(w, x):
        y = x @ w
        if jnp.sum(y) > 0:
            y = jnp.tanh(y)
        return jnp.sum(y ** 2)


    def scale(p, x):
        return p["a"] * x + p["b"]


    def bad(x):
        return x.reshape(7)
""")


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return str(path)


def _run(argv, capsys):
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_jaxpr_source_hlo_cost(model, capsys):
    code, out, _ = _run(["jaxpr", f"{model}:loss", "f32[3,2]", "f32[4,3]"], capsys)
    assert code == 0 and out.startswith("{ lambda ; a:f32[3,2] b:f32[4,3]. let") and "cond[" in out
    code, out, _ = _run(["source", f"{model}:loss", "f32[3,2]", "f32[4,3]", "--grad"], capsys)
    assert code == 0 and "def " in out and "lax.dot_general" in out
    code, out, _ = _run(["source", f"{model}:scale", '{"a": "f32[]", "b": "f32[3]"}', "f32[5,3]",
                         "--vmap", "None,0"], capsys)
    assert code == 0 and "f32[5,3]" in out
    code, out, _ = _run(["hlo", f"{model}:loss", "f32[3,2]", "f32[4,3]"], capsys)
    assert code == 0 and "stablehlo.dot_general" in out
    code, out, _ = _run(["hlo", f"{model}:loss", "f32[3,2]", "f32[4,3]", "--optimized"], capsys)
    assert code == 0 and out.startswith("HloModule jit_loss")
    code, out, _ = _run(["cost", f"{model}:loss", "f32[3,2]", "f32[4,3]"], capsys)
    assert code == 0 and "flops: 72" in out and "output size bytes: 4" in out


@pytest.mark.parametrize("argv, message", [
    (["jaxpr", "{model}:bad", "f32[3]"], "model.py:17:12 ShapeError: cannot reshape"),
    (["jaxpr", "{model}:nope", "f32[3]"], "has no attribute 'nope'"),
    (["jaxpr", "{model}", "f32[3]"], "expected FILE:FUNC"),
    (["jaxpr", "/no/such.py:f", "f32[3]"], "no such file"),
    (["jaxpr", "{model}:loss", "f33[3]"], "unknown dtype 'f33'"),
    (["jaxpr", "{model}:loss", "f32[3"], "bad argument spec"),
    (["jaxpr", "no_such_module_xyz:f"], "cannot import no_such_module_xyz"),
    (["source", "{model}:loss", "f32[3,2]", "f32[4,3]", "--grad", "--argnums", "x"], "bad --argnums"),
])
def test_errors_are_one_line_exit_2(model, capsys, argv, message):
    code, out, err = _run([a.format(model=model) for a in argv], capsys)
    assert code == 2 and out == ""
    assert err.startswith("astjax: error: ") and message in err and err.count("\n") == 1


def test_module_target_and_help(capsys):
    code, out, _ = _run(["jaxpr", "astjax.numpy:sin", "f32[2]"], capsys)
    assert code == 0 and "sin a" in out
    p = subprocess.run([sys.executable, "-m", "astjax", "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "jaxpr" in p.stdout and "examples:" in p.stdout


def test_hlo_debug_info(model, capsys):
    """`hlo --debug-info`: every StableHLO op of the user's lines ends in a location
    alias naming the primitive and model.py:line:col; the plain text has none. With
    `--optimized`, XLA's HLO names the user's file in its stack-frame tables."""
    argv = ["hlo", f"{model}:loss", "f32[3,2]", "f32[4,3]"]
    code, plain, _ = _run(argv, capsys)
    assert code == 0 and "loc(" not in plain
    code, out, _ = _run(argv + ["--debug-info"], capsys)
    assert code == 0
    aliases = re.findall(r'^#loc\d+ = loc\("\w+"\("[^"]*model\.py":\d+:\d+\)\)$', out, re.M)
    assert len(aliases) >= 5, out[:500]
    dot = re.search(r'"stablehlo\.dot_general".* loc\((#loc\d+)\)$', out, re.M)
    assert dot and re.search(rf'^{dot.group(1)} = loc\("dot_general"\("[^"]*model\.py":6:\d+\)\)$',
                             out, re.M)
    tanh = re.search(r'"stablehlo\.tanh".* loc\((#loc\d+)\)$', out, re.M)
    assert tanh and re.search(rf'^{tanh.group(1)} = loc\("tanh"\("[^"]*model\.py":8:\d+\)\)$',
                              out, re.M)
    code, opt, _ = _run(argv + ["--optimized", "--debug-info"], capsys)
    assert code == 0 and opt.startswith("HloModule jit_loss") and f'"{model}"' in opt
    code, opt_plain, _ = _run(argv + ["--optimized"], capsys)
    assert code == 0 and f'"{model}"' not in opt_plain
