"""Mechanism tests for issue 14's 600-statement first call: the module astjax hands XLA
is JAX's module op for op (a scalar constant written at each use, as JAX writes it), so
XLA's compile -- about nine tenths of the first call -- is the same work for both;
counted, never timed."""
import collections
import re
import textwrap

import numpy as np

import astjax
import astjax.numpy as jnp

# jax 0.10.2, `jax.jit(f).lower(x).as_text()` of `_source(600)` on f32[8], ops counted
JAX_OPS_600 = {"constant": 1201, "broadcast_in_dim": 1201, "multiply": 1201, "sine": 600,
               "add": 600}


def _source(n):
    """The benchmark's function (`benchmarks/workloads.py:_long_source`)."""
    lines = ["def f(x):", "    a0 = x * 1.0"]
    for i in range(1, n + 1):
        lines.append(f"    a{i} = jnp.sin(a{i - 1}) * 0.5 + a{max(0, i - 1 - i % 3)} * 0.25")
    lines.append(f"    return a{n}")
    return "\n".join(lines) + "\n"


def _function(tmp_path, n):
    path = tmp_path / f"statements_{n}.py"
    path.write_text(textwrap.dedent(_source(n)))
    ns = {"jnp": jnp}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    return ns["f"]


def _ops(text):
    return collections.Counter(re.findall(r"stablehlo\.(\w+)", text))


def test_the_600_statement_module_is_jaxs_op_for_op(tmp_path):
    f = _function(tmp_path, 600)
    ops = _ops(astjax.jit(f).lower(jnp.ones(8, jnp.float32)).as_text())
    assert dict(ops) == JAX_OPS_600, ops


def test_a_long_function_compiles_to_one_fusion(tmp_path):
    # XLA's program: one loop fusion of every statement, the parameter its only input
    f = _function(tmp_path, 60)
    x = np.linspace(-1, 1, 8).astype(np.float32)
    compiled = astjax.jit(f).lower(x).compile()
    entry = compiled.as_text().split("\nENTRY ", 1)[1].split("\n}", 1)[0]
    body = [ln for ln in entry.split("\n")[1:] if "=" in ln]
    assert len(body) == 2 and " parameter(0)" in body[0] and " fusion(" in body[1], entry
    a = {0: x * 1.0}
    for i in range(1, 61):
        a[i] = np.sin(a[i - 1]) * 0.5 + a[max(0, i - 1 - i % 3)] * 0.25
    np.testing.assert_allclose(np.asarray(compiled(x)), a[60], rtol=1e-5)
