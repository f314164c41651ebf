"""A persistent, opt-in compile cache: compiled XLA executables on disk, shared
between processes.

Turn it on with `astjax.config.update("astjax_compile_cache_dir", path)` or the
environment variable `ASTJAX_COMPILE_CACHE_DIR` (read when astjax is imported). Off
(the default), compiling is exactly `client.compile_and_load`.

An entry is keyed by the SHA-256 of everything that decides the compiled code: the
StableHLO module text, the jaxlib version, the platform and its version, the device
kind, the devices the program runs on (count and ids), the replica count and
`XLA_FLAGS`. It holds `client.serialize_executable(exe)`; a hit is
`client.deserialize_executable` (about 1 ms, against tens of ms or more to compile).
Entries are written atomically (temporary file + rename), so concurrent processes
can share a directory; an unreadable entry is recompiled and rewritten.

`stats` counts hits, misses, writes and errors in this process;
`ASTJAX_COMPILE_CACHE_LOG=1` prints one line per lookup to stderr.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time

from jaxlib import xla_client as xc
import jaxlib

stats = {"hits": 0, "misses": 0, "writes": 0, "errors": 0,
         "load_s": 0.0, "compile_s": 0.0}   # seconds spent loading hits / compiling misses
_SUFFIX = ".xlaexe"


def cache_dir():
    from astjax.config import config
    d = config.read("astjax_compile_cache_dir")
    return os.fspath(d) if d else None


def _log(msg):
    if os.environ.get("ASTJAX_COMPILE_CACHE_LOG"):
        print(f"astjax compile cache: {msg}", file=sys.stderr)


def cache_key(client, text: str, devs, options) -> str:
    h = hashlib.sha256()
    dev0 = devs[0]
    for part in ("astjax-compile-cache-v1", jaxlib.__version__, client.platform,
                 client.platform_version, getattr(dev0, "device_kind", ""),
                 ",".join(str(d.id) for d in devs),
                 str(getattr(options, "num_replicas", 1)),
                 str(getattr(options, "num_partitions", 1)),
                 os.environ.get("XLA_FLAGS", "")):
        h.update(part.encode())
        h.update(b"\0")
    h.update(text.encode())
    return h.hexdigest()


def compile_or_load(client, text: str, devs, options):
    """`client.compile_and_load(text, devs, options)`, through the cache when on."""
    devs = tuple(devs)
    d = cache_dir()
    if d is None:
        return client.compile_and_load(text.encode(), xc.DeviceList(devs), options)
    key = cache_key(client, text, devs, options)
    path = os.path.join(d, key + _SUFFIX)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        data = None
    t0 = time.perf_counter()
    if data is not None:
        try:
            exe = client.deserialize_executable(data, xc.DeviceList(devs), options)
        except Exception as e:  # truncated / incompatible entry: recompile below
            stats["errors"] += 1
            _log(f"unreadable entry {key[:16]} ({type(e).__name__}); recompiling")
        else:
            stats["hits"] += 1
            stats["load_s"] += time.perf_counter() - t0
            _log(f"hit {key[:16]}")
            return exe
    stats["misses"] += 1
    _log(f"miss {key[:16]}")
    t0 = time.perf_counter()
    exe = client.compile_and_load(text.encode(), xc.DeviceList(devs), options)
    stats["compile_s"] += time.perf_counter() - t0
    try:
        data = client.serialize_executable(exe)
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=_SUFFIX)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        stats["writes"] += 1
    except Exception as e:  # a cache that cannot be written is not an error
        stats["errors"] += 1
        _log(f"cannot write {path}: {e}")
    return exe


def clear(directory=None):
    """Remove every entry of the cache directory (default: the configured one)."""
    d = directory or cache_dir()
    if not d or not os.path.isdir(d):
        return 0
    n = 0
    for name in os.listdir(d):
        if name.endswith(_SUFFIX):
            os.remove(os.path.join(d, name))
            n += 1
    return n
