"""Eager operations under `set_mesh` run on the context mesh as JAX 0.10.2's do
(tests/oracle/record_eager_mesh.py -> eager_mesh.json): creation functions,
arithmetic on uncommitted arrays, reductions, PRNG draws and reference reads give
committed arrays replicated over the mesh (`P(None, ...)` where JAX's type names the
mesh, `P()` otherwise), a sharded operand keeps its layout, `device_put` of a host
value stays uncommitted on one device, and an operand committed to another device is
JAX's ValueError (naming a jnp ufunc's operand `x` / `y`, as JAX's jitted ufuncs do)."""
import json

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_eager_mesh as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_eager_operation_under_set_mesh_as_jax(case):
    kind, name = case.split("/")
    got, want = rec.run_case(jax, jnp, name, kind), EXPECTED[case]
    if "error" in want:
        assert issubclass(getattr(jax.errors, got.get("error", ""), type(None)),
                          ValueError), got   # (JAX's ValueError, located)
        assert got["message"] == want["message"]
        return
    np.testing.assert_allclose(np.asarray(got.pop("value"), np.float64),
                               np.asarray(want["value"], np.float64), rtol=2e-6)
    assert got == {k: v for k, v in want.items() if k != "value"}


def test_operations_after_set_mesh_stay_on_their_devices():
    """Leaving `set_mesh`, a result made inside keeps its layout and what is made
    from it alone stays on the mesh; fresh arrays go back to one device."""
    mesh = rec.mesh_of(jax, "auto")
    with jax.set_mesh(mesh):
        x = jnp.ones(4)
    y, z = x * 2, jnp.ones(4)
    assert (type(y.sharding).__name__, len(y.sharding.device_set)) == ("NamedSharding", 4)
    assert (type(z.sharding).__name__, z.committed) == ("SingleDeviceSharding", False)
    np.testing.assert_array_equal(y + z, np.full(4, 3.0))
