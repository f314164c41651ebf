"""Layouts of top-level `pmap` results on 4 devices: run on real JAX 0.10.2 to record
`pmap_layout.json` (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_pmap_layout.py`), and on astjax by tests/test_pmap_layout.py.

Each case records what JAX returns: the sharding's repr, `is_fully_replicated`,
every shard's (device id, index ranges, replica id, data shape) and the values."""
import json
import sys
from pathlib import Path

import numpy as np


def layout(x):
    """What a test compares for one result."""
    shards = []
    for s in x.addressable_shards:
        idx = [[sl.start, sl.stop] for sl in s.index]
        shards.append([s.device.id, idx, s.replica_id, list(s.data.shape)])
    return {"sharding": repr(x.sharding), "shards": sorted(shards, key=lambda t: t[0]),
            "fully_replicated": bool(x.is_fully_replicated),
            "fully_addressable": bool(x.is_fully_addressable),
            "value": np.asarray(x, np.float64).round(5).tolist(), "shape": list(x.shape)}


def cases(jax, jnp):
    """name -> zero-argument function returning a pmap-related array on 4 devices."""
    Mesh, NamedSharding = jax.sharding.Mesh, jax.sharding.NamedSharding
    P = jax.sharding.PartitionSpec
    devs = np.array(jax.devices()[:4])
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    m = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 7
    dbl = jax.pmap(lambda a: a * 2, axis_name="i")
    out = {}
    out["basic"] = lambda: dbl(x)
    out["no_axis_name"] = lambda: jax.pmap(lambda a: a + 1)(x)
    out["out_axes_none"] = lambda: jax.pmap(lambda a: jax.lax.psum(a, "i"), axis_name="i",
                                            out_axes=None)(x)
    out["out_axes_1"] = lambda: jax.pmap(lambda a: a, out_axes=1)(x)
    out["in_axes_1"] = lambda: jax.pmap(lambda a: jnp.sin(a), in_axes=1, axis_name="j")(m)
    out["in_axes_1_out_1"] = lambda: jax.pmap(lambda a: a * 3, in_axes=1, out_axes=1)(m)
    out["unmapped_arg"] = lambda: jax.pmap(lambda a, b: a * b, in_axes=(0, None),
                                           axis_name="i")(x, np.float32(3))
    out["chain"] = lambda: dbl(dbl(x))
    out["chain_other_name"] = lambda: jax.pmap(lambda a: a - 1, axis_name="k")(dbl(x))
    out["eager_add"] = lambda: dbl(x) + 1.0
    out["eager_sum"] = lambda: dbl(x).sum(0)
    out["jit_mul"] = lambda: jax.jit(lambda a: a * 5)(dbl(x))
    out["jit_sum1"] = lambda: jax.jit(lambda a: a.sum(1))(dbl(x))
    out["from_put"] = lambda: dbl(jax.device_put(x, NamedSharding(Mesh(devs, ("i",)),
                                                                  P("i"))))
    out["tuple_second"] = lambda: jax.pmap(lambda a: (a, a.sum()), axis_name="i")(x)[1]
    out["psum"] = lambda: jax.pmap(lambda a: jax.lax.psum(a, "i"), axis_name="i")(x)
    return out


def run(jax, jnp):
    return {name: layout(f()) for name, f in cases(jax, jnp).items()}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("pmap_layout.json")
    path.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
