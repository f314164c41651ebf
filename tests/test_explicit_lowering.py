"""`jit` on a mesh of Explicit axes lowers as JAX 0.10.2 does (Shardy): a
`sdy.sharding_constraint` to its type after each operation whose type names the mesh
(a scalar literal of an elementwise operation broadcast and constrained first), and
the mesh's `stablehlo.mesh` attribute on its `sdy.mesh` declaration; the programs run
with JAX's layouts. A one-device jit annotates arguments committed to their device
over the empty mesh, as JAX's (tests/oracle/record_explicit_lowering.py -> explicit_lowering.json)."""
import json

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_lowering as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

@pytest.fixture(scope="module")
def programs():
    return rec.programs(jax, jnp)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lowered_text_as_jax(programs, name):
    assert programs[name]() == EXPECTED[name]


def test_constrained_programs_run():
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"))
    x = jax.device_put(np.arange(8.0, dtype=np.float32).reshape(4, 2), NS(mesh, P("x")))
    with jax.set_mesh(mesh):
        r = jax.jit(lambda a: jax.reshard(jnp.sin(a) * 2, P(None, "y")) + 1)(x)
    assert r.sharding.spec == P(None, "y")
    np.testing.assert_allclose(r, np.sin(np.arange(8.0).reshape(4, 2)) * 2 + 1, rtol=1e-6)
