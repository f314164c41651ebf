"""Multi-platform exports and `lax.platform_dependent` against JAX 0.10.2
(tests/oracle/record_export_platforms.py -> export_platforms.json): exported for
("cpu", "cuda") on this CPU-only machine, the module's `@main` takes JAX's platform
index argument, each platform's function keeps the branch for *its* platform (the
lowering platform decides, not the device), the CPU branch runs, and JAX's
multi-platform artifacts run in astjax. No GPU is needed."""
import base64
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import export, lax

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
from record_export_platforms import PLATFORMS, SHAPES, functions, main_signature  # noqa: E402

ORACLE = json.loads(Path(__file__).with_name("oracle").joinpath("export_platforms.json")
                    .read_text())
FNS = functions(jax, jnp, lax)


def _x(name):
    shape = SHAPES[name]
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 4


@pytest.mark.parametrize("name", list(FNS))
def test_multi_platform_export_as_jax(name):
    want = ORACLE[name]
    exp = export.export(jax.jit(FNS[name]), platforms=PLATFORMS)(
        jax.ShapeDtypeStruct(SHAPES[name], np.float32))
    assert list(exp.platforms) == want["platforms"]
    assert main_signature(exp.mlir_module()) == want["main"]
    np.testing.assert_allclose(exp.call(_x(name)), want["result"], rtol=1e-6)
    np.testing.assert_allclose(export.deserialize(exp.serialize()).call(_x(name)),
                               want["result"], rtol=1e-6)
    theirs = export.deserialize(base64.b64decode(want["artifact"]))
    assert list(theirs.platforms) == want["platforms"]
    np.testing.assert_allclose(theirs.call(_x(name)), want["result"], rtol=1e-6)


@pytest.mark.parametrize("name", [n for n in FNS if "platform_index" in ORACLE[n]["jaxpr"]])
def test_every_branch_is_staged_with_jax_platform_index(name):
    line = next(l.strip() for l in ORACLE[name]["jaxpr"].splitlines() if "platform_index" in l)
    assert line in str(jax.make_jaxpr(FNS[name])(_x(name)))


def test_each_platform_function_keeps_its_own_branch():
    """The lowering platform picks the branch: in the ("cpu", "cuda") module the CUDA
    function's index is the `cuda` branch's (1), the CPU function's the `cpu`
    branch's (0); exported for "cuda" alone, the module has no platform argument and
    the index is 1 -- though this machine only has a CPU."""
    fn = FNS["cpu_cuda_default"]
    spec = jax.ShapeDtypeStruct((3,), np.float32)
    text = export.export(jax.jit(fn), platforms=PLATFORMS)(spec).mlir_module()
    funcs = dict(re.findall(r"func\.func private @_platform_(\w+)\(.*?\n(.*?)\n  }", text,
                            re.S))
    assert set(funcs) == {"cpu", "cuda"}
    for platform, index in (("cpu", 0), ("cuda", 1)):
        assert f"stablehlo.constant dense<{index}> : tensor<i32>" in funcs[platform]
    cuda = export.export(jax.jit(fn), platforms=("cuda",))(spec)
    assert "_platform_index" not in cuda.mlir_module()
    assert "stablehlo.constant dense<1> : tensor<i32>" in cuda.mlir_module()
    x = np.ones(3, np.float32)
    np.testing.assert_allclose(fn(x), x * 2)               # eager: the CPU device's branch
    np.testing.assert_allclose(jax.jit(fn)(x), x * 2)
    with pytest.raises(Exception, match="platform"):
        cuda.call(x)                                        # (exported for CUDA only)
