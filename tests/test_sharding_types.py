"""Issue 15's last items against JAX 0.10.2 on 4 CPU devices, stored in
tests/oracle/sharding_types.json by tests/oracle/record_sharding_types.py: unreduced
/ reduced axes (PartitionSpec, NamedSharding, arrays, `dot_general(out_sharding=)`,
`reshard`, JAX's errors for misuse), varying manual axes inside `shard_map`
(`jax.typeof(x)`, `.mat.varying`, the printed body), shard_map's in_specs check on
Explicit meshes, `pmap(f).lower` / `jit(pmap(f)).lower` and `make_jaxpr`'s sharded
types: the same text, or JAX's builtin error class and message (located where astjax
raises an AstjaxError)."""
import warnings

import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError

from oracle.record_sharding_types import cases, run_case
from oracle import compare

EXPECTED = compare.load("sharding_types")
CASES = cases(jax)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


# Where astjax's jaxpr has fewer steps than JAX's, on purpose: JAX's value -> astjax's.
# (grad_types, which had one, now has JAX's: the weight's cotangent is JAX's
# dot_general(ct, v) + transpose where it sums, reductions._dot_transpose_rhs.)
FEWER_STEPS: dict = {}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(name):
    with warnings.catch_warnings():      # (the cases record typeof from inside bodies)
        warnings.simplefilter("ignore")
        got = run_case(CASES[name])
    want = dict(EXPECTED[name])
    if name in FEWER_STEPS:
        jax_part, ours = FEWER_STEPS[name]
        assert jax_part in want["value"]
        want["value"] = want["value"].replace(jax_part, ours)
    assert got == want


def test_errors_are_located():
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"))
    x = np.ones((4, 4), np.float32)
    a = jax.device_put(x, jax.sharding.NamedSharding(mesh, P("x", "y")))
    with pytest.raises(ValueError) as e:
        jax.shard_map(lambda v: v, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(a)
    assert isinstance(e.value, AstjaxError) and e.value.loc is not None
    b = jax.device_put(x, jax.sharding.NamedSharding(mesh, P("y", None)))
    with jax.set_mesh(mesh), pytest.raises(NotImplementedError) as e:
        jax.jit(lambda a, b: jax.numpy.sin(jax.numpy.dot(
            a, b, out_sharding=P("x", None, unreduced={"y"}))))(a, b)
    assert isinstance(e.value, AstjaxError) and e.value.loc is not None


def test_device_put_unreduced_holds_partial_sums_of_the_value():
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"))
    x = np.arange(16., dtype=np.float32).reshape(4, 4)
    u = jax.device_put(x, jax.sharding.NamedSharding(mesh, P(None, unreduced={"y"})))
    parts = [np.asarray(b) for b in u._buffers()]
    # devices (x, y=0) hold the value, (x, y=1) zeros: their sum over y is x
    np.testing.assert_array_equal(sum(parts[i] for i in (0, 1)), x)
    with jax.set_mesh(mesh):
        np.testing.assert_array_equal(np.asarray(jax.reshard(u, P())), x)


def test_typeof_of_a_loop_carry_inside_shard_map_is_its_initial_values():
    """A scan carry is typed as its initial value (JAX 0.10.2: `float32[2]{V:x}`), a
    Python loop's row as the array's."""
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    seen = []

    def body(v):
        def step(c, _):
            seen.append(jax.typeof(c))
            return c, None
        for r in v.reshape(2, 1):
            seen.append(jax.typeof(r))
        return jax.lax.scan(step, v, None, length=2)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x")))(
            np.ones(8, np.float32))
    assert str(seen[-1]) == "float32[2]{V:x}" and seen[-1].mat.varying == {"x"}
    assert str(seen[0]) == "float32[1]{V:x}"
