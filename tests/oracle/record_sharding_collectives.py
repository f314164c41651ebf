"""`axis_index_groups` of the collectives (psum, pmean, pmax, pmin, all_gather,
psum_scatter, all_to_all) under `pmap`, `jit(pmap)`, `grad(pmap)`, `vmap(pmap)` and
`shard_map`, JAX's errors for groups that do not cover the indices or that name the
axis being vmapped, and nested `pmap` (which JAX 0.10.2 refuses). Per case the value
or the error (builtin class and message). Run on real JAX 0.10.2 to record
`sharding_collectives.json` (`XLA_FLAGS=--xla_force_host_platform_device_count=4
python tests/oracle/record_sharding_collectives.py`), and on astjax by
tests/test_pmap_groups.py."""
import json
import sys
from pathlib import Path

import numpy as np

PAIRS = [[0, 1], [2, 3]]
STRIDED = [[0, 2], [1, 3]]


def cases(jax):
    """name -> a function of no arguments (4 devices)."""
    lax, jnp, pmap = jax.lax, jax.numpy, jax.pmap
    P = jax.sharding.PartitionSpec
    x = np.arange(4., dtype=np.float32)
    m = np.arange(8., dtype=np.float32).reshape(4, 2) - 3

    def pm(f):
        return lambda: pmap(f, "i")(x)
    mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))

    def smap(f):
        return lambda: jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P("i"), out_specs=P("i"),
                                             check_vma=False))(m)
    return {
        "psum_pairs": pm(lambda v: lax.psum(v, "i", axis_index_groups=PAIRS)),
        "psum_strided": pm(lambda v: lax.psum(v, "i", axis_index_groups=STRIDED)),
        "psum_uneven": pm(lambda v: lax.psum(v, "i", axis_index_groups=[[0], [1, 2, 3]])),
        "psum_tree": lambda: pmap(lambda v: lax.psum({"a": v, "b": (v * 2, v + 1)}, "i",
                                                     axis_index_groups=STRIDED), "i")(x),
        "psum_constant": pm(lambda v: v * lax.psum(1, "i", axis_index_groups=PAIRS)),
        "psum_bad_cover": pm(lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [1, 3]])),
        "pmean_pairs": pm(lambda v: lax.pmean(v, "i", axis_index_groups=PAIRS)),
        "pmean_int": lambda: pmap(lambda v: lax.pmean(v, "i", axis_index_groups=STRIDED),
                                  "i")(np.arange(4, dtype=np.int32)),
        "pmax_groups": pm(lambda v: lax.pmax(v, "i", axis_index_groups=[[0, 3], [1, 2]])),
        "pmin_groups": pm(lambda v: lax.pmin(v, "i", axis_index_groups=[[0, 3], [1, 2]])),
        "pmax_bad_cover": pm(lambda v: lax.pmax(v, "i", axis_index_groups=[[0, 2]])),
        "all_gather_groups": pm(lambda v: lax.all_gather(v, "i", axis_index_groups=STRIDED)),
        "all_gather_tiled_groups": pm(lambda v: lax.all_gather(
            v[None], "i", axis_index_groups=STRIDED, tiled=True)),
        "psum_scatter_groups": pm(lambda v: lax.psum_scatter(
            jnp.stack([v, 2 * v]), "i", axis_index_groups=STRIDED)),
        "psum_scatter_tiled_groups": pm(lambda v: lax.psum_scatter(
            jnp.stack([v, 2 * v, 3 * v, 4 * v]), "i", axis_index_groups=PAIRS, tiled=True)),
        "all_to_all_groups": pm(lambda v: lax.all_to_all(
            jnp.stack([v, 2 * v]), "i", 0, 0, axis_index_groups=STRIDED)),
        "grad_psum_groups": lambda: jax.grad(lambda v: pmap(lambda u: lax.psum(
            u ** 2, "i", axis_index_groups=STRIDED), "i")(v).sum())(x),
        "grad_all_gather_groups": lambda: jax.grad(lambda v: pmap(lambda u: (lax.all_gather(
            u, "i", axis_index_groups=PAIRS) * jnp.arange(2.)).sum(), "i")(v).sum())(x),
        "jit_pmap_pmean_groups": lambda: jax.jit(pmap(lambda v: lax.pmean(
            v, "i", axis_index_groups=STRIDED), "i"))(x),
        "jit_pmap_all_gather_groups": lambda: jax.jit(pmap(lambda v: lax.all_gather(
            v, "i", axis_index_groups=PAIRS), "i"))(x),
        "vmap_of_pmap_groups": lambda: jax.vmap(pmap(lambda v: lax.psum(
            v, "i", axis_index_groups=PAIRS), "i"))(np.stack([x, x + 1])),
        "vmap_groups": lambda: jax.vmap(lambda v: lax.psum(v, "i", axis_index_groups=PAIRS),
                                        axis_name="i")(x),
        "vmap_all_gather_groups": lambda: jax.vmap(lambda v: lax.all_gather(
            v, "i", axis_index_groups=PAIRS), axis_name="i")(x),
        "shard_map_psum_groups": smap(lambda v: lax.psum(v, "i", axis_index_groups=PAIRS)),
        "shard_map_all_gather_groups": smap(lambda v: lax.all_gather(
            v, "i", axis_index_groups=STRIDED, tiled=True)),
        # nested pmap: JAX 0.10.2 refuses it (its pmap is a shard_map on its own mesh)
        "nested_pmap": lambda: pmap(pmap(lambda v: v * 2, "j"), "i")(x.reshape(2, 2)),
        "nested_pmap_psum": lambda: pmap(pmap(lambda v: lax.psum(v, ("i", "j")), "j"),
                                         "i")(x.reshape(2, 2)),
        "jit_nested_pmap": lambda: jax.jit(pmap(pmap(lambda v: v * 2, "j"), "i"))(
            x.reshape(2, 2)),
        "pmap_of_vmap_two_axes": lambda: pmap(jax.vmap(lambda v: lax.psum(v, ("i", "j")),
                                                       axis_name="j"), "i")(x.reshape(2, 2)),
    }


def run_case(jax, fn):
    """{"value": nested lists} or {"error": builtin class name, "message": first line}."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return {"error": builtin.__name__,
                "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}
    return {"value": jax.tree_util.tree_map(lambda a: np.asarray(a).tolist(), out)}


if __name__ == "__main__":
    import jax
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("sharding_collectives.json")
    got = {name: run_case(jax, fn) for name, fn in cases(jax).items()}
    path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
