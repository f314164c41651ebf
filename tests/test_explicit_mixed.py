"""A mesh of Explicit and Auto axes as JAX 0.10.2 types it
(tests/oracle/record_mixed_mesh.py -> mixed_mesh.json): types name the Explicit axes
only, inside `jit` and in `make_jaxpr` too; operations refuse layouts those types cannot
hold (ShardingTypeError, eagerly and under `jit`); each typed result is constrained
with its dimensions open (`{"x", ?}, {?}`); `out_info` names no layout. And
`jit(f).trace` of arguments on incompatible devices stages (its jaxpr printed) and
raises JAX's ValueError, naming the parameters, only at `.lower()`."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from oracle import compare
from oracle import record_mixed_mesh as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_as_jax(name):
    assert compare.plain(rec.run_case(jax, jnp, name)) == EXPECTED[name]


def test_every_case_recorded():
    compare.assert_recorded(EXPECTED, rec.cases(jax, jnp))


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
