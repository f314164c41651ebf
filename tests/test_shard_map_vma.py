"""shard_map's `check_vma` against JAX 0.10.2 on 4 CPU devices (stored in
tests/oracle/sharding_vma.json by tests/oracle/record_sharding_vma.py): the same
results, or JAX's builtin error class and message (the out_specs replication error
word for word), located at the user's line."""
import builtins
import re

import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError

from oracle.record_sharding_vma import cases, run_case
from oracle import compare

EXPECTED = compare.load("sharding_vma")
CASES = cases(jax)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

# JAX names a loop carry by the user's parameter or its pytree path ("c",
# "loop_carry[1]", "c[1]"); astjax's jaxpr keeps only the carry's position ("[0]")
_CARRY_NAME = re.compile(r"the input carry (component )?\S+", re.IGNORECASE)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(name):
    want = EXPECTED[name]
    if "error" not in want:
        got = run_case(CASES[name])
        assert "error" not in got, got
        np.testing.assert_allclose(got["sum"], want["sum"], rtol=1e-6)
        return
    with pytest.raises(getattr(builtins, want["error"])) as e:
        CASES[name]()
    assert isinstance(e.value, AstjaxError) and e.value.loc is not None   # located
    got, expected = e.value.message, want["message"]
    if "carry" in name:
        got, expected = (_CARRY_NAME.sub("the input carry X", t) for t in (got, expected))
    assert got == expected


def test_pcast_under_vmap_inside_shard_map_is_the_identity():
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    P = jax.sharding.PartitionSpec
    a = np.arange(16., dtype=np.float32).reshape(4, 4)
    f = jax.jit(jax.shard_map(
        lambda v, w: jax.vmap(lambda r, s: jax.lax.pcast(r, "x", to="varying") + s)(v[:2], w),
        mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x")))
    np.testing.assert_array_equal(np.asarray(f(a, a)), np.concatenate([a[:2] + a[:2],
                                                                       a[:2] + a[2:]]))
    # over the vmapped axis itself the cast has nothing left to mark
    g = jax.vmap(lambda r: jax.lax.pcast(r, "i", to="varying") * 2, axis_name="i")
    np.testing.assert_array_equal(np.asarray(g(a)), a * 2)
