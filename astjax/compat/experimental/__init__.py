"""`jax.experimental`: `io_callback`, `cur_qdd(x)` (a hijax value's quasi-dynamic
data, its own; see `astjax.hi_state`), and the experimental submodules astjax serves
(`checkify`, `shard_map`, `layout`, ...). JAX 0.10.2 has no `MutableArray` /
`mutable_array` here any more (`jax.new_ref` / `jax.Ref`), nor `pure_callback`
(`jax.pure_callback`)."""
from astjax.callbacks_api import io_callback  # noqa: F401
from astjax.hi_state import cur_qdd  # noqa: F401
