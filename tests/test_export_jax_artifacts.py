"""Artifacts serialized by JAX 0.10.2's `jax.export` (stored by
tests/oracle/record_export.py) load and run in astjax with JAX's results -- eagerly,
under `jit` and, through the VJP stored with them, under `grad`. (The other
direction, astjax's artifacts run by JAX, is checked by
tests/oracle/check_export_in_jax.py, which needs JAX.)"""
import base64
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax import export

sys_path = Path(__file__).with_name("oracle")
CASES = json.loads((sys_path / "export.json").read_text())
import sys  # noqa: E402
sys.path.insert(0, str(sys_path))
from record_export import ARGS  # noqa: E402


def _load(name):
    return export.deserialize(base64.b64decode(CASES[name]["artifact"]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_jax_artifact_runs(name):
    exp = _load(name)
    args, dtype, kwargs = ARGS[name]
    xs = [np.asarray(a, dtype) for a in args]
    for run in (exp.call, jax.jit(exp.call)):
        got = jax.tree_util.tree_leaves(run(*xs, **kwargs))
        assert len(got) == len(CASES[name]["result"])
        for g, want in zip(got, CASES[name]["result"]):
            np.testing.assert_allclose(np.asarray(g), np.asarray(want), rtol=1e-6, atol=1e-6)
    if "grad" in CASES[name]:
        def first(a):
            return jax.tree_util.tree_leaves(exp.call(a, *xs[1:], **kwargs))[0].sum()
        np.testing.assert_allclose(jax.grad(first)(xs[0]), CASES[name]["grad"], rtol=1e-5)


def test_fields_of_a_jax_artifact():
    exp = _load("unused_arg")
    assert exp.fun_name == "<lambda>" and exp.module_kept_var_idx == (0, 2)
    assert exp.calling_convention_version == 10 and exp.nr_devices == 1
    assert [str(a) for a in exp.in_avals] == ["float32[2]", "float32[1]", "float32[2]"]
    multi = _load("multi_platform")
    assert multi.platforms == ("cpu", "cuda") and multi.uses_global_constants
    assert "stablehlo" in multi.mlir_module()


def test_reserialized_jax_artifact_is_the_same_function():
    exp = _load("kwargs_tuple")
    again = export.deserialize(exp.serialize(vjp_order=1))
    for field in ("fun_name", "in_tree", "out_tree", "in_avals", "out_avals", "platforms",
                  "module_kept_var_idx", "calling_convention_version",
                  "mlir_module_serialized"):
        assert getattr(again, field) == getattr(exp, field), field
    assert again.vjp().in_avals == exp.vjp().in_avals
