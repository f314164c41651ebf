"""`jax.experimental`: `io_callback`, and the experimental submodules astjax serves
(`checkify`, `shard_map`, `layout`, ...). JAX 0.10.2 has no `MutableArray` /
`mutable_array` here any more (`jax.new_ref` / `jax.Ref`), nor `pure_callback`
(`jax.pure_callback`)."""
from astjax.callbacks_api import io_callback  # noqa: F401
