"""Programs a JAX user exports with symbolic shapes (padding, slices with symbolic
bounds, `arange` / `ones` / `eye` of symbolic sizes, loops over a dimension,
sorting, cumulative sums, `vmap` / `grad` inside, ...) against JAX 0.10.2's stored
results (tests/oracle/record_shape_poly_programs.py -> shape_poly_programs.json):
astjax's export prints JAX's avals and computes JAX's values at two sizes, JAX's
artifact runs in astjax, and what JAX refuses astjax refuses with JAX's error."""
import base64
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import export, lax

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
from record_shape_poly_programs import CASES, functions, inputs  # noqa: E402
from test_shape_poly import _close  # noqa: E402  (results within float32 tolerance)

ORACLE = json.loads(Path(__file__).with_name("oracle").joinpath("shape_poly_programs.json")
                    .read_text())
FNS = functions(jax, jnp, lax)


def _args(name):
    specs, dtype, _, constraints = CASES[name]
    scope = export.SymbolicScope(constraints)
    return [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), dtype) for s in specs]


# known remaining differences: name -> reason (strict xfails)
XFAIL: dict = {}


def _cases(refused):
    return [pytest.param(n, marks=pytest.mark.xfail(reason=XFAIL[n], strict=True))
            if n in XFAIL else n for n in CASES if ("error" in ORACLE[n]) == refused]


@pytest.mark.parametrize("name", _cases(False))
def test_program_exports_and_runs_as_jax(name):
    want = ORACLE[name]
    ours = export.export(jax.jit(FNS[name]))(*_args(name))
    theirs = export.deserialize(base64.b64decode(want["artifact"]))
    for exp in (ours, theirs):
        assert [str(a) for a in exp.in_avals] == want["in_avals"]
        assert [str(a) for a in exp.out_avals] == want["out_avals"]
    for k, (shapes, result) in enumerate(zip(CASES[name][2], want["results"], strict=True)):
        xs = inputs(CASES[name][1], shapes)
        _close(ours.call(*xs), result)
        if k == 0:     # (JAX's artifact at one size: each size is one more compile)
            _close(theirs.call(*xs), result)


@pytest.mark.parametrize("name", _cases(True))
def test_program_refused_as_jax(name):
    want = ORACLE[name]
    with pytest.raises(Exception) as info:
        export.export(jax.jit(FNS[name]))(*_args(name))
    assert type(info.value).__name__ == want["error"] or want["error"] in [
        c.__name__ for c in type(info.value).__mro__]
    assert getattr(info.value, "message", str(info.value)).split("\n")[0] == want["message"]
