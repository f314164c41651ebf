"""`jit` under `set_mesh` runs on the context mesh's devices, as JAX 0.10.2's does
(tests/oracle/record_context_mesh.py -> context_mesh.json): results laid out
replicated over the mesh (`P(None, ...)` on Explicit axes, `P()` on Auto ones, a
1-device mesh too), JAX's ValueError for an argument committed to another device
(positional, keyword, inside a pytree) and for `jit(device=)`, `with mesh:` leaving
`jit` on one device, and the module text of an Auto mesh; references and tokens at
the boundary too."""
import contextlib
import json

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_context_mesh as rec

EXPECTED = json.loads(rec.PATH.read_text())
CASES = sorted(k for k in EXPECTED if k != "lowered")

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def table():
    return rec.cases(jax, jnp)


@pytest.mark.parametrize("case", CASES)
def test_jit_under_set_mesh_as_jax(table, case):
    kind, name = case.split("/")
    legacy = kind == "legacy"
    got = rec.run_case(jax, jnp, table[name], "explicit" if legacy else kind, legacy)
    want = EXPECTED[case]
    if "error" in want:
        assert "error" in got, got
        assert want["error"] in [c.__name__ for c in getattr(
            jax.errors, got["error"], ValueError).__mro__] or got["error"] == want["error"]
        assert got["message"] == want["message"]
        return
    assert got == want


def test_lowered_text_on_an_auto_mesh_as_jax():
    assert rec.lowered(jax, jnp) == EXPECTED["lowered"]


@pytest.mark.parametrize("args", ["array", "numpy", "none", "tree", "global"])
def test_fast_paths_key_the_context_mesh(args):
    """Each signature is called twice outside, inside, outside again (the fast paths
    remember every call): a result is on the mesh exactly inside `set_mesh`."""
    mesh = rec.mesh_of(jax, "auto")
    put = jax.device_put(np.ones(4, np.float32),
                         jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x")))
    given = {"array": (jnp.ones(4),), "numpy": (np.ones(4, np.float32),), "none": (),
             "tree": ([jnp.ones(4), (jnp.ones(4),)],), "global": (put,)}[args]
    f = jax.jit(lambda *a: sum(jax.tree_util.tree_leaves(a), jnp.ones(4)))
    kinds = []
    for inside in (False, False, True, True, False, False):
        with jax.set_mesh(mesh) if inside else contextlib.nullcontext():
            r = f(*given)
        kinds.append((type(r.sharding).__name__, len(r.sharding.device_set)))
        np.testing.assert_array_equal(r, np.ones(4) * (len(jax.tree_util.tree_leaves(given)) + 1))
    one = ("NamedSharding", 4) if args == "global" else ("SingleDeviceSharding", 1)
    assert kinds == [one] * 2 + [("NamedSharding", 4)] * 2 + [one] * 2
