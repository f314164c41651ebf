"""The rarer names of `jax.sharding`, `jax.stages`, `jax.extend` and
`jax.interpreters` (issue 13, item 13), against what JAX 0.10.2 prints or raises
(stored in tests/oracle/more_names.json by tests/oracle/record_more_names.py)."""

import pytest

import astjax as jax

from oracle import record_more_names as rec
from oracle import compare

EXPECTED = compare.load("more_names")
# the only spelling difference: where each library defines its Mesh class
_CLASS_NAMES = {"astjax.sharding_impls.Mesh": "jax._src.mesh.Mesh"}

needs4 = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                            "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def _spelled_as_jax(text):
    for ours, theirs in _CLASS_NAMES.items():
        text = text.replace(ours, theirs)
    return text


@needs4
@pytest.mark.parametrize("name,case", rec.CASES, ids=[n for n, _ in rec.CASES])
def test_sharding_names_as_jax(name, case):
    assert _spelled_as_jax(case(jax)) == EXPECTED[name]


def test_use_abstract_mesh_inside_set_mesh_is_undone_by_leaving_set_mesh():
    # set_mesh brings its own abstract mesh; leaving it restores the outer override
    s = jax.sharding
    outer = s.AbstractMesh((1,), ("o",))
    mesh = jax.make_mesh((1,), ("x",), devices=jax.devices()[:1])
    with s.use_abstract_mesh(outer):
        with jax.set_mesh(mesh):
            assert s.get_abstract_mesh().axis_names == ("x",)
        assert s.get_abstract_mesh() is outer
    assert s.get_abstract_mesh().empty


def test_new_modules_import_through_the_jax_alias():
    import subprocess
    import sys
    code = ("import astjax; astjax.install_as_jax()\n"
            "import jax.extend.backend, jax.extend.lowering, jax.interpreters.xla\n"
            "import jax.extend.mlir.ir, jax.extend.mlir.passmanager\n"
            "from jax.extend.mlir.dialects import stablehlo\n"
            "from jax.interpreters import traceback_util\n"
            "from jax.stages import Wrapped\n"
            "from jax.sharding import AbstractDevice, use_abstract_mesh, reshard\n"
            "print(jax.extend.backend.get_backend().platform, stablehlo.AddOp.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [jax.extend.backend.get_backend().platform, "AddOp"]
