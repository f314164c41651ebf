"""`jax._src.interpreters.pxla`: `global_result_handlers`, per abstract-value type the
maker of the function that turns a computation's result buffers (one per device) into
an Array, as extended-dtype rules read it (flax's fp8 `global_sharded_result_handler`
builds its `EArray` over one). astjax builds its own EArrays; this is the same mapping
for code that calls it."""
from __future__ import annotations

from astjax.codegen.runtime import Array
from astjax.codegen.sharded import make_array_from_single_device_arrays
from astjax.ir import ShapedArray

__all__ = ["global_result_handlers"]


def _array_result_handler(aval, sharding, committed):
    """`bufs -> Array` of `aval`: one device's buffer as it is, several (one per device
    of `sharding`, each holding that device's part) joined into one global array."""
    def handler(bufs):
        bufs = list(bufs)
        if len(bufs) == 1:
            return Array(bufs[0], ShapedArray(aval.shape, aval.dtype))
        parts = [Array(b, ShapedArray(tuple(b.shape), aval.dtype)) for b in bufs]
        return make_array_from_single_device_arrays(aval.shape, sharding, parts)
    return handler


global_result_handlers = {ShapedArray: _array_result_handler}
