"""`jax.experimental.array_serialization`: arrays written to and read from storage
through `tensorstore` (zarr / zarr3 layouts, one chunk per shard), in the same files,
specs and metadata JAX 0.10.2 writes, so a checkpoint written by either reads back
under the other. `serialization` holds what orbax-checkpoint and flax use
(`GlobalAsyncCheckpointManager`, `get_tensorstore_spec`); `tensorstore_impl` the
reading and writing. Both need `tensorstore` (an optional dependency, as in JAX:
importing them without it raises ImportError)."""
