"""Sharding in types where JAX 0.10.2's differed from astjax's, each against JAX's
recorded outcome:

- a mesh of Explicit and Auto axes (tests/oracle/record_mixed_mesh.py ->
  mixed_mesh.json): types name the Explicit axes only, inside `jit` and in `make_jaxpr`
  too; operations refuse layouts those types cannot hold (ShardingTypeError, eagerly
  and under `jit`); each typed result is constrained with its dimensions open
  (`{"x", ?}, {?}`); `with_sharding_constraint` over the Auto axes keeps the type;
  `out_info` names no layout; and `jit(f).trace` of arguments on incompatible devices
  stages (its jaxpr printed) and raises JAX's ValueError, naming the parameters, only
  at `.lower()`;
- `jit(f, in_shardings=...)` of host values and ShapeDtypeStructs
  (record_explicit_in_shardings.py): typed by the value -- replicated over
  `set_mesh`'s mesh, untyped outside it --, never by in_shardings;
- `vmap` over arrays whose mapped dimension is laid out over an Explicit axis
  (record_explicit_vmap_axis.py): an unbatched result broadcast laid out over it, and
  JAX's ValueErrors for mapped arguments that disagree on it, an unmapped one sharded
  along it, or another `spmd_axis_name`."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from oracle import compare
from oracle import record_explicit_in_shardings as in_shardings
from oracle import record_explicit_vmap_axis as vmap_axis
from oracle import record_mixed_mesh as mixed

RECORDERS = {"mixed": mixed, "in_shardings": in_shardings, "vmap_axis": vmap_axis}
EXPECTED = {k: json.loads(rec.PATH.read_text()) for k, rec in RECORDERS.items()}

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def _table(rec):
    table = rec.cases(jax, jnp)
    return table[1] if isinstance(table, tuple) else table   # (some give the mesh first)


@pytest.mark.parametrize("case", [f"{k}/{n}" for k in RECORDERS for n in sorted(EXPECTED[k])])
def test_as_jax(case):
    kind, name = case.split("/")
    assert compare.plain(RECORDERS[kind].run_case(jax, jnp, name)) == EXPECTED[kind][name]


@pytest.mark.parametrize("kind", sorted(RECORDERS))
def test_every_case_recorded(kind):
    compare.assert_recorded(EXPECTED[kind], _table(RECORDERS[kind]))


def test_refused_lowering_is_located_value_error():
    """The error `.lower()` raises is an AstjaxError and a ValueError at that line."""
    sh = jax.sharding
    d = jax.devices()
    u = jax.device_put(jnp.arange(4.0), sh.NamedSharding(sh.Mesh(d[:2], ("i",)),
                                                         sh.PartitionSpec("i")))
    v = jax.device_put(jnp.arange(4.0), d[3])
    traced = jax.jit(lambda p, q: p + q).trace(u, v)
    with pytest.raises(ValueError) as info:
        traced.lower()
    assert isinstance(info.value, AstjaxError) and info.value.loc.file == __file__
    with pytest.raises(ValueError, match="argument p of"):   # (and a call, as before)
        jax.jit(lambda p, q: p + q)(u, v)


def test_vmap_axis_error_is_located():
    mesh, table = vmap_axis.cases(jax, jnp)
    with jax.set_mesh(mesh), pytest.raises(ValueError) as info:
        table["mapped_inconsistent"]()
    assert isinstance(info.value, AstjaxError) and info.value.loc.file == vmap_axis.__file__
