"""`jax.experimental.shard_map`: the older spelling of `jax.shard_map`, with the
mesh and specs positional and `check_rep` for `check_vma`."""
from astjax.pmap_api import shard_map_public as _shard_map

__all__ = ["shard_map"]


def shard_map(f, mesh, in_specs, out_specs, check_rep=True, auto=frozenset()):
    """`jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs)`."""
    if auto:
        raise NotImplementedError("shard_map with auto axes is not supported by astjax yet")
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      check_vma=check_rep)
