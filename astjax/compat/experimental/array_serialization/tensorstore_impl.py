"""`jax.experimental.array_serialization.tensorstore_impl`: one array to and from a
tensorstore, the way JAX 0.10.2 lays it out.

- **Specs** (`get_tensorstore_spec`): a path becomes a `file` kvstore (or `gcs` /
  `s3` for `gs://` / `s3://` URLs), optionally inside an OCDBT database whose entry
  is the path's last component; the array driver is `zarr3` unless asked otherwise.
- **Metadata**: the global shape, and one chunk per shard (the sharding's shard
  shape; for `zarr3` split further, by the smallest prime factors, until a chunk is
  about 2 GB), `zstd`-compressed for `zarr` (and for `zarr3` on remote storage).
- **Writing** (`async_serialize`): each shard of replica 0 held by this process
  writes its own region; **reading** (`async_deserialize`): each addressable device
  reads the region its shard covers (zeros beyond the stored shape), cast to the
  requested dtype, placed on that device.
"""
from __future__ import annotations

import asyncio
import logging
import math
import os
import re
from functools import lru_cache, partial

import numpy as np
import tensorstore as ts

import astjax as _astjax
from astjax import dtypes as _dtypes
from astjax import tree_util as _tree_util
from astjax.compat.experimental.layout import Format
from astjax.errors import (ArgumentTypeError as _ArgumentTypeError,
                           ArgumentValueError as _ArgumentValueError, SourceInfo as _SourceInfo,
                           caller_location as _caller_location)
from astjax.sharding import Sharding as _Sharding, SingleDeviceSharding as _SingleDevice

__all__ = ["get_tensorstore_spec", "async_serialize", "async_deserialize",
           "estimate_read_memory_footprint", "merge_nested_ts_specs",
           "verify_tensorstore_spec", "is_tensorstore_spec_leaf", "combine_kvstores",
           "Future", "Transaction"]

Future, Transaction = ts.Future, ts.Transaction

_TS_ARRAY_DRIVER = "zarr3"
_DEFAULT_BASE_DRIVER = "file"
_PROCESS_DIR_FORMAT = "process_{}"
_FILE_SIZE_TARGET = 2 * 1024 ** 3
_TS_CONTEXT = ts.Context({
    "file_io_concurrency": {"limit": 128},
    "cache_pool": {"total_bytes_limit": 10_000_000_000},
    "cache_pool#remote": {"total_bytes_limit": 10_000_000_000},
    "data_copy_concurrency": {"limit": 128},
})
_TS_CHUNK_LAYOUT = ts.ChunkLayout(chunk=ts.ChunkLayout.Grid(elements=100_000_000))
_BUCKET_URL = {"gs": "gcs", "s3": "s3"}

logger = logging.getLogger(__name__)


def _bad_value(message, *, located=True):
    """JAX's ValueError, at the caller's line (`located=False` inside a coroutine,
    where the caller is the event loop)."""
    return _ArgumentValueError(message, hint="", loc=_caller_location() if located else
                              _SourceInfo())


class _LimitInFlightBytes:
    """At most `host_memory_bytes_limit` bytes of host scratch memory reserved by
    reads at once; a single request above the limit raises the limit to it."""

    def __init__(self, host_memory_bytes_limit: int):
        self._max_bytes = host_memory_bytes_limit
        self._available_bytes = host_memory_bytes_limit
        self._cv = asyncio.Condition(lock=asyncio.Lock())

    async def wait_for_bytes(self, requested_bytes):
        """Reserve `requested_bytes`, waiting until they are free."""
        if requested_bytes > self._max_bytes:
            self._available_bytes += requested_bytes - self._max_bytes
            self._max_bytes = requested_bytes
        async with self._cv:
            await self._cv.wait_for(lambda: self._available_bytes >= requested_bytes)
            self._available_bytes -= requested_bytes

    async def release_bytes(self, requested_bytes):
        """Give back `requested_bytes` reserved by `wait_for_bytes`."""
        async with self._cv:
            self._available_bytes += requested_bytes
            self._cv.notify_all()


def is_tensorstore_spec_leaf(leaf) -> bool:
    """Whether `leaf` is one array's spec in a tree of specs (None or a dict naming a
    driver or kvstore)."""
    return leaf is None or (isinstance(leaf, dict) and ("driver" in leaf or "kvstore" in leaf))


def _smallest_factors(n: int) -> list:
    """`n`'s prime factors, ascending (with repeats)."""
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1 if p == 2 else 2
    return out + ([n] if n > 1 else [])


@lru_cache(maxsize=1024)
def _compute_chunk_shape(local_shape, dtype, file_size_target=_FILE_SIZE_TARGET) -> list:
    """A chunk dividing `local_shape` whose byte size is at most 110% of
    `file_size_target`: repeatedly divide the axis with the smallest remaining prime
    factor (the first such axis on ties) by it."""
    shape = list(local_shape)
    if not shape or math.prod(shape) == 0:
        return [max(d, 1) for d in shape]
    factors = [_smallest_factors(d) for d in shape]
    size = math.prod(shape) * np.dtype(dtype).itemsize
    while size > 1.1 * file_size_target:
        axes = [a for a, f in enumerate(factors) if len(f) > 1]
        if not axes:
            break
        axis = min(axes, key=lambda a: (factors[a][0], a))
        p = factors[axis].pop(0)
        shape[axis] //= p
        size //= p
    return shape


def _local_shape(arr):
    return tuple(arr.sharding.shard_shape(arr.shape)) if isinstance(arr, _astjax.Array) \
        else tuple(arr.shape)


def _get_tensorstore_metadata(arr, is_remote: bool = False,
                              file_size_target: int = _FILE_SIZE_TARGET,
                              driver: str = _TS_ARRAY_DRIVER) -> dict:
    """The `metadata` of `arr`'s spec for `driver` (`zarr3` or `zarr`)."""
    return _metadata(tuple(arr.shape), np.dtype(arr.dtype), _local_shape(arr), is_remote,
                     file_size_target, driver)


def _metadata(global_shape, dtype, local_shape, is_remote, file_size_target, driver):
    if driver == "zarr3":
        chunk = _compute_chunk_shape(local_shape, dtype, file_size_target=file_size_target)
        return {"codecs": [{"name": "zstd"}] if is_remote else [],
                "shape": global_shape, "data_type": np.dtype(dtype).name,
                "chunk_grid": {"name": "regular",
                               "configuration": {"chunk_shape": list(chunk)}}}
    if driver == "zarr":   # (zarr's dtype sits in the spec itself)
        return {"compressor": {"id": "zstd"}, "shape": global_shape,
                "chunks": [max(1, int(d)) for d in local_shape]}
    raise _bad_value(f"Unsupported driver: {driver}")


def merge_nested_ts_specs(dict1: dict, dict2: dict | None) -> dict:
    """`dict1` updated by `dict2` (whose entries win), the two `kvstore`s merged."""
    if dict2 is None:
        return dict1
    kvstore = {**dict1.get("kvstore", {}), **dict2.get("kvstore", {})}
    return {**dict1, **dict2, "kvstore": kvstore}


def verify_tensorstore_spec(spec: dict, arr, path, ocdbt: bool,
                            check_metadata: bool = True) -> None:
    """ValueError unless `spec` stores `arr` at `path`: OCDBT when asked, the dtype,
    shape and (zarr3) a chunk dividing the shard shape in its metadata, the path."""
    if ocdbt and spec.get("kvstore", {}).get("driver", "") != "ocdbt":
        raise _bad_value(f"Expected ocdbt driver, got {spec=}")
    if check_metadata:
        if arr is None:
            raise _bad_value("Array is required for metadata verification.")
        meta, zarr3 = spec["metadata"], spec.get("driver", "") == "zarr3"
        if zarr3 and meta["data_type"] != np.dtype(arr.dtype).name:
            raise _bad_value(f"Provided dtype ({meta['data_type']=}) doesn't match "
                             f"({arr.dtype=})")
        if "shape" in meta and tuple(meta["shape"]) != tuple(arr.shape):
            raise _bad_value(f"Provided shape ({meta['shape']=}) doesn't match "
                             f"({arr.shape=})")
        if zarr3:
            chunk = meta["chunk_grid"]["configuration"]["chunk_shape"]
            if any(d % c for d, c in zip(_local_shape(arr), chunk)):
                raise _bad_value(f"Provided chunk shape {chunk} does not divide the "
                                 f"local shape of the array {_local_shape(arr)}")
    found = spec["kvstore"]["base"]["path"] if ocdbt else spec["kvstore"]["path"]
    if str(found) != str(path):
        raise _bad_value(f"Provided {path=} does not match the spec path: "
                         f"{spec['kvstore']}")


def _spec_has_metadata(tree) -> bool:
    return isinstance(tree, dict) and (
        "metadata" in tree or any(_spec_has_metadata(v) for v in tree.values()))


def _bucket_kvstore(path: str) -> dict:
    """The `gcs` / `s3` kvstore of a `gs://bucket/path` / `s3://bucket/path` URL."""
    scheme = path.split(":", 1)[0]
    m = re.fullmatch(rf"{scheme}://([^/]*)/(.*)", path, re.DOTALL)
    if m is None:
        raise _bad_value("The ckpt_path should contain the bucket name and the file "
                         f"path inside the bucket. Got: {path}")
    return {"driver": _BUCKET_URL[scheme], "bucket": m.group(1), "path": m.group(2)}


def get_tensorstore_spec(ckpt_path, ocdbt: bool = True, process_idx: int | None = None,
                         arr=None, driver: str = _TS_ARRAY_DRIVER) -> dict:
    """The tensorstore spec storing an array at `ckpt_path` (a local path, or a
    `gs://` / `s3://` URL): `driver` over its kvstore; with `ocdbt`, an OCDBT
    database in the parent directory (which must be absolute locally) holding the
    array under the last path component; with `process_idx`, under a
    `process_<i>` directory beside it; with `arr`, its metadata."""
    path = os.path.normpath(str(ckpt_path))
    path = re.sub(r"^(gs|s3):/", r"\1://", path)   # (normpath folded the `//`)
    if process_idx is not None:
        parent, name = os.path.split(path)
        path = os.path.join(parent, _PROCESS_DIR_FORMAT.format(process_idx), name)
    remote = path.split(":", 1)[0] if re.match(r"^(gs|s3)://", path) else None
    entry = None
    if ocdbt:
        whole = path
        path, entry = os.path.split(path)
        if remote and re.fullmatch(rf"{remote}://([^/]*)/(.*)", path) is None:
            raise _bad_value("Using OCDBT requires the bucket name, the directory name "
                             f"and the array name, your path is: {whole}")
    base = _bucket_kvstore(path) if remote else {"driver": _DEFAULT_BASE_DRIVER,
                                                 "path": path}
    if ocdbt:
        if not remote and not os.path.isabs(path):
            raise _bad_value(f"Checkpoint path should be absolute. Got {path}")
        kvstore = {"driver": "ocdbt", "base": base, "path": entry}
    else:
        kvstore = base
    spec = {"driver": driver, "kvstore": kvstore}
    if arr is not None:
        spec["metadata"] = _get_tensorstore_metadata(arr, driver=driver)
    return spec


async def combine_kvstores(combined_kvstore: dict, kvstores: list,
                           context=_TS_CONTEXT) -> None:
    """Copy every key of `kvstores` into `combined_kvstore`, in one transaction (one
    process only)."""
    combined, stores = await asyncio.gather(
        ts.KvStore.open(combined_kvstore, context=context),
        asyncio.gather(*(ts.KvStore.open(k, context=context) for k in kvstores)))
    txn = ts.Transaction()
    await asyncio.gather(*(s.experimental_copy_range_to(combined.with_transaction(txn))
                           for s in stores))
    await txn.commit_async()


async def async_serialize(arr_inp, tensorstore_spec, commit_future=None,
                          context=_TS_CONTEXT, chunk_layout=_TS_CHUNK_LAYOUT,
                          primary_host: int | None = None, replica_id: int = 0,
                          transaction=None):
    """Write `arr_inp` (an array: NumPy's have no shards, AttributeError) to `tensorstore_spec` (completed
    in place with its metadata, and its dtype for `zarr`). This process writes the
    shards of replica `replica_id` it holds. With a list `commit_future`, the
    writes' commit futures are appended to it and this returns once the data is
    copied; otherwise it returns once committed. `primary_host` (None: every
    process) is the process that creates the store."""
    if isinstance(arr_inp, _astjax.Array) and _astjax.process_count() > 1 and \
            arr_inp.is_fully_addressable:
        raise _bad_value(
            "Passing fully addressable arrays to a multiprocess serialization is not "
            "allowed, as this may lead to a race condition between processes. "
            "Serialization have failed for the array with the path from kvstore: "
            f"\"{tensorstore_spec['kvstore']}\".", located=False)
    if not _spec_has_metadata(tensorstore_spec):
        tensorstore_spec["metadata"] = _get_tensorstore_metadata(
            arr_inp, driver=tensorstore_spec["driver"])
    if tensorstore_spec["driver"] == "zarr" and "dtype" not in tensorstore_spec:
        tensorstore_spec["dtype"] = np.dtype(arr_inp.dtype).name
    opening = dict(open=True, context=context, chunk_layout=chunk_layout,
                   transaction=transaction)
    if primary_host is None or _astjax.process_index() == primary_host:
        created = ts.open(ts.Spec(tensorstore_spec), create=True, **opening)
        if commit_future is not None:
            commit_future.append(created)
        else:
            await created
    # (no I/O: the metadata is the spec's, whoever created the store)
    store = await ts.open(ts.Spec(tensorstore_spec), assume_metadata=True, **opening)

    async def write(shard):
        if shard.replica_id != replica_id:
            return
        data = np.asarray(shard.data)
        await asyncio.sleep(0)   # (let the other shards' copies start)
        written = store[shard.index].write(
            data, can_reference_source_data_indefinitely=isinstance(arr_inp, _astjax.Array))
        if commit_future is not None:
            commit_future.append(written.commit)
            await written.copy
        else:
            await written.commit

    return await asyncio.gather(*(write(s) for s in arr_inp.addressable_shards))


def _run_serialization(arrays, tensorstore_specs):
    """Write each array to its spec (`async_serialize`), waiting for the commits."""
    async def run():
        return await asyncio.gather(*_tree_util.tree_map(async_serialize, arrays,
                                                         tensorstore_specs))
    asyncio.run(run())


def estimate_read_memory_footprint(t, domain) -> int:
    """Bytes read from `t` to fill `domain` (None: all of it): the whole chunks it
    touches (the whole domain for an unchunked driver)."""
    nbytes = t.dtype.numpy_dtype.itemsize
    domain = t.domain if domain is None else domain
    template = t.chunk_layout.read_chunk_template
    if not all(template[i].finite for i in range(t.rank)):
        return domain.size * nbytes
    for i in range(t.rank):
        c, start = template.shape[i], domain.origin[i] - template.origin[i]
        stop = start + domain.shape[i]
        nbytes *= -(-stop // c) * c - start // c * c
    return nbytes


def _in_sharding_and_layout(in_type, dtype):
    """(sharding, layout, dtype) of what `async_deserialize` was asked for."""
    if isinstance(in_type, Format):
        return in_type.sharding, in_type.layout, dtype
    if isinstance(in_type, _astjax.ShapeDtypeStruct):
        fmt = getattr(in_type, "format", None)
        return (in_type.sharding, getattr(fmt, "layout", None),
                in_type.dtype if dtype is None else dtype)
    if not isinstance(in_type, _Sharding):
        raise _ArgumentTypeError(
            "sharding passed to deserialization should be specified, concrete and an "
            f"instance of `jax.sharding.Sharding`. Got {in_type}", hint="",
            loc=_SourceInfo())   # (raised in a coroutine: no user line to point at)
    return in_type, None, dtype


async def async_deserialize(in_type, tensorstore_spec, global_shape=None, dtype=None,
                            byte_limiter: _LimitInFlightBytes | None = None,
                            context=_TS_CONTEXT, chunk_layout=_TS_CHUNK_LAYOUT,
                            assume_metadata: bool = False):
    """Read the array stored at `tensorstore_spec` into `in_type` (a sharding, a
    `Format` or a `ShapeDtypeStruct`): each addressable device reads its shard's
    region of `global_shape` (default: the stored shape; zeros where it reaches
    beyond the stored data), cast to `dtype` (default: the stored one)."""
    sharding, layout, dtype = _in_sharding_and_layout(in_type, dtype)
    t = await ts.open(tensorstore_spec, open=True, assume_metadata=assume_metadata,
                      context=context, chunk_layout=chunk_layout)
    shape = tuple(t.shape if global_shape is None else global_shape)
    stored = t.dtype.numpy_dtype
    dtype = stored if dtype is None else dtype
    shard_shape = tuple(sharding.shard_shape(shape))

    async def read(index, device):
        wanted = ts.IndexTransform(input_shape=shape)[index].domain
        present = t.domain.intersect(wanted)
        nbytes = estimate_read_memory_footprint(t, present)
        if byte_limiter is not None:
            await byte_limiter.wait_for_bytes(nbytes)
        out = np.zeros(shard_shape, dtype=stored)
        await ts.array(out)[ts.d[:].translate_to[wanted.origin]][present].write(t[present])
        out = out.astype(dtype)
        target = _SingleDevice(device)
        placed = _astjax.device_put(out, target if layout is None else Format(layout, target))
        if byte_limiter is not None:
            await byte_limiter.release_bytes(nbytes)
        return placed

    index_of = sharding.devices_indices_map(shape)
    parts = await asyncio.gather(*(read(index_of[d], d)
                                   for d in sharding._addressable_device_assignment))
    return _astjax.make_array_from_single_device_arrays(
        shape, sharding, list(parts), dtype=_dtypes.canonicalize_dtype(dtype))


def _run_deserialization(shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                         concurrent_gb: int = 32):
    """Read each spec into its sharding (`async_deserialize`), at most
    `concurrent_gb` GB of host memory in flight; `global_shapes` / `dtypes` (lists,
    one per spec) override the stored ones."""
    n = len(tensorstore_specs)

    async def run():
        limiter = _LimitInFlightBytes(concurrent_gb * 10 ** 9)
        return await asyncio.gather(*_tree_util.tree_map(
            partial(async_deserialize, byte_limiter=limiter), list(shardings),
            list(tensorstore_specs), [None] * n if global_shapes is None else global_shapes,
            [None] * n if dtypes is None else dtypes))
    return asyncio.run(run())
