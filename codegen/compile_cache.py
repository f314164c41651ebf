"""A persistent, opt-in compile cache: compiled XLA executables on disk, shared
between processes.

Turn it on with `astjax.config.update("astjax_compile_cache_dir", path)` or the
environment variable `ASTJAX_COMPILE_CACHE_DIR` (read when astjax is imported). Off
(the default), compiling is exactly `client.compile_and_load`.

An entry is keyed by the SHA-256 of everything that decides the compiled code: the
StableHLO module text, the jaxlib version, the platform and its version, the device
kind, the devices the program runs on (count and ids), the replica and partition
counts, the compile options `jit(compiler_options=)` sets (XLA option overrides and
build options) and `XLA_FLAGS`. It holds `client.serialize_executable(exe)`; a hit is
`client.deserialize_executable` (about 1 ms, against tens of ms or more to compile).
Entries are written atomically (temporary file + rename), so concurrent processes
can share a directory.

Nothing unverified reaches `deserialize_executable` (a damaged executable can kill the
process from inside XLA). An entry is a fixed header -- magic, format version, the full
key, the payload length and the payload's SHA-256 -- then the payload; all five are
checked before deserialising, and the loaded executable's entry signature (number and
shapes of parameters and results) is checked against the StableHLO module's. Any
mismatch (truncated, bit-flipped, swapped with another entry, an older format) discards
the entry, counts an error, says so once on stderr, and recompiles.

Before the disk, `compile_or_load` looks in an in-memory table of the last
`MEMORY_ENTRIES` executables keyed by the module text (always on; `memory_hits`).

`stats` counts hits, misses, writes and errors in this process;
`ASTJAX_COMPILE_CACHE_LOG=1` prints one line per lookup to stderr.
"""
from __future__ import annotations

import collections
import functools
import hashlib
import os
import re
import struct
import sys
import tempfile
import time
import types

from jaxlib import xla_client as xc
import jaxlib
import numpy as np

from astjax.config import config
from astjax.util import WeakIdMap, hashable

stats = {"hits": 0, "misses": 0, "writes": 0, "errors": 0, "uncacheable": 0,
         "memory_hits": 0,
         "load_s": 0.0, "compile_s": 0.0}   # seconds spent loading hits / compiling misses
# In-memory executables keyed by the module text and what else decides the compiled
# code (client, devices, replicas/partitions, XLA_FLAGS): a program staged again (a
# fresh `jit(f)`, a re-staged transformation) is not compiled again (issue 14).
MEMORY_ENTRIES = 512
_memory: "collections.OrderedDict" = collections.OrderedDict()
_SUFFIX = ".xlaexe"
_MAGIC = b"ASTJAXXC"
_FORMAT = 2
_HEADER = struct.Struct("<8sI64sQ32s")   # magic, format, key (hex), payload length, sha256
_warned = False


def cache_dir():
    d = config.read("astjax_compile_cache_dir")
    return os.fspath(d) if d else None


def _log(msg):
    if os.environ.get("ASTJAX_COMPILE_CACHE_LOG"):
        print(f"astjax compile cache: {msg}", file=sys.stderr)


def _discard(path, key, why):
    """Count and report a bad entry (stderr once per process), and delete it."""
    global _warned
    stats["errors"] += 1
    msg = f"discarded damaged entry {key[:16]} ({why}); recompiling"
    if not _warned and not os.environ.get("ASTJAX_COMPILE_CACHE_LOG"):
        print(f"astjax compile cache: {msg}", file=sys.stderr)
    _warned = True
    _log(msg)
    try:
        os.remove(path)
    except OSError:
        pass


def pack_entry(key: str, payload: bytes) -> bytes:
    """The bytes of one cache entry: header, then the serialized executable."""
    return _HEADER.pack(_MAGIC, _FORMAT, key.encode(), len(payload),
                        hashlib.sha256(payload).digest()) + payload


def unpack_entry(data: bytes, key: str) -> bytes:
    """The payload of an entry written by `pack_entry` for `key`; ValueError naming
    the first check that fails."""
    if len(data) < _HEADER.size:
        raise ValueError("shorter than the header")
    magic, fmt, stored_key, length, digest = _HEADER.unpack_from(data)
    payload = data[_HEADER.size:]
    if magic != _MAGIC:
        raise ValueError("not an astjax cache entry")
    if fmt != _FORMAT:
        raise ValueError(f"format {fmt}, expected {_FORMAT}")
    if stored_key != key.encode():
        raise ValueError("written for another program")
    if length != len(payload):
        raise ValueError(f"payload of {len(payload)} bytes, header says {length}")
    if hashlib.sha256(payload).digest() != digest:
        raise ValueError("checksum mismatch")
    return payload


_HLO_SHAPE = re.compile(r"\b[a-z]+[0-9]*\[([0-9,]*)\]")
_MLIR_TENSOR = re.compile(r"tensor<((?:[0-9]+x)*)[^<>]*?(?:<[^<>]*>)?>")


def _dims_hlo(part):
    return [tuple(int(d) for d in m.group(1).split(",") if d) for m in _HLO_SHAPE.finditer(part)]


def _dims_mlir(part):
    return [tuple(int(d) for d in m.group(1).split("x") if d)
            for m in _MLIR_TENSOR.finditer(part)]


def mlir_signature(text: str):
    """(parameter dims, result dims) of the module's `@main`, from StableHLO text."""
    m = re.search(r"@main\((.*?)\)\s*->\s*(.*?)\s*(?:attributes\b.*)?\{\s*$", text, re.M)
    if m is None or "!stablehlo.token" in m.group(0):
        return None
    return _dims_mlir(m.group(1)), _dims_mlir(m.group(2))


def executable_signature(exe):
    """(parameter dims, result dims) of a loaded executable's entry computation."""
    head = exe.hlo_modules()[0].to_string().split("\n", 1)[0]
    m = re.search(r"entry_computation_layout=\{\((.*)\)->(.*)\}", head)
    if m is None:
        return None
    return _dims_hlo(m.group(1)), _dims_hlo(m.group(2))


# `jit(compiler_options=)` names that XLA reads from the build options, not from the
# environment overrides (set_compiler_options): part of the key
BUILD_OPTIONS = ("exec_time_optimization_effort", "memory_fitting_effort",
                 "optimization_level", "memory_fitting_level")


def set_compiler_options(opts, items):
    """Put `jit(compiler_options=)`'s (name, value) pairs on CompileOptions `opts`: the
    build-option ones on its build options, the rest as XLA's environment overrides
    (an unknown name or a bad value is XLA's INVALID_ARGUMENT when compiling)."""
    env = []
    for name, value in items:
        if name in BUILD_OPTIONS:
            setattr(opts.executable_build_options, name, value)
        else:
            env.append((name, value))
    if env:
        opts.env_option_overrides = env


def cache_key(client, text: str, devs, options) -> str:
    """The digest naming a compiled program: jaxlib's and the devices' identity, the
    compile options that change the executable (replicas, partitions, XLA option
    overrides, build options, XLA_FLAGS) and the module text."""
    build = getattr(options, "executable_build_options", None)
    h = hashlib.sha256()
    dev0 = devs[0]
    for part in ("astjax-compile-cache-v2", jaxlib.__version__, client.platform,
                 client.platform_version, getattr(dev0, "device_kind", ""),
                 ",".join(str(d.id) for d in devs),
                 str(getattr(options, "num_replicas", 1)),
                 str(getattr(options, "num_partitions", 1)),
                 repr(list(getattr(options, "env_option_overrides", ()))),
                 repr([getattr(build, n, None) for n in BUILD_OPTIONS]),
                 os.environ.get("XLA_FLAGS", "")):
        h.update(part.encode())
        h.update(b"\0")
    h.update(text.encode())
    return h.hexdigest()


def refine_polymorphic_shapes(text):
    """A module that calls a function exported with symbolic shapes (`text.refine`),
    with every dynamic dimension refined to the concrete shapes of its arguments by
    jaxlib's pass (which also checks the module's shape assertions): the text that
    compiles. Other modules are returned as they are."""
    if not getattr(text, "refine", False):
        return text
    from jaxlib import _jax
    refined = _jax.mlir.refine_polymorphic_shapes(
        text.encode(), enable_shape_assertions=True, validate_static_shapes=True)
    out = type(text)(_parsed_module(refined).operation.get_asm(enable_debug_info=False))
    out.__dict__.update({k: v for k, v in vars(text).items() if k != "refine"})
    return out


def _parsed_module(text):
    """`text` as an MLIR module object (what compiling with host callbacks takes)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    context = ir.Context()
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    stablehlo.register_dialect(context)
    chlo.register_dialect(context)
    sdy.register_dialect(context)        # partitioned programs lowered with Shardy
    with context:
        return ir.Module.parse(text)


def compile_or_load(client, text: str, devs, options):
    """`client.compile_and_load(text, devs, options)`, through the in-memory cache
    (always on) and the disk cache (when on). A module that calls back into Python
    (`text.host_callbacks`) is compiled with its callbacks and never cached: the
    functions live only in this process."""
    devs = tuple(devs)
    callbacks = getattr(text, "host_callbacks", ())
    if callbacks:
        stats["uncacheable"] += 1
        return client.compile_and_load(_parsed_module(text), xc.DeviceList(devs), options,
                                       list(callbacks))
    mkey = (id(client), cache_key(client, text, devs, options))  # a digest: texts can be big
    exe = _memory.get(mkey)
    if exe is not None:
        stats["memory_hits"] += 1
        _memory.move_to_end(mkey)
        return exe
    exe = _compile_or_load_disk(client, text, devs, options, mkey[1])
    _memory[mkey] = exe
    if len(_memory) > MEMORY_ENTRIES:
        _memory.popitem(last=False)
    return exe


def _compile_or_load_disk(client, text, devs, options, key):
    """Compile, or load the entry `key` of the disk cache when one is configured."""
    d = cache_dir()
    if d is None:
        return client.compile_and_load(text.encode(), xc.DeviceList(devs), options)
    path = os.path.join(d, key + _SUFFIX)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        data = None
    t0 = time.perf_counter()
    if data is not None:
        exe = _load(client, data, key, path, text, devs, options)
        if exe is not None:
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
            f.write(pack_entry(key, data))
        os.replace(tmp, path)
        stats["writes"] += 1
    except Exception as e:  # a cache that cannot be written is not an error
        stats["errors"] += 1
        _log(f"cannot write {path}: {e}")
    return exe


def _load(client, data, key, path, text, devs, options):
    """The executable of a verified entry, or None (the entry is discarded)."""
    try:
        payload = unpack_entry(data, key)
    except ValueError as e:
        _discard(path, key, str(e))
        return None
    try:
        exe = client.deserialize_executable(payload, xc.DeviceList(devs), options)
    except Exception as e:  # an intact entry jaxlib still refuses (e.g. another build)
        _discard(path, key, f"{type(e).__name__} while loading")
        return None
    if not _same_signature(mlir_signature(text), executable_signature(exe),
                           getattr(options, "num_partitions", 1) or 1):
        _discard(path, key, "its signature differs from the program's")
        return None
    return exe


def _same_signature(want, got, num_partitions):
    """Same number of parameters and results, of the same ranks -- and shapes, unless
    the program is partitioned (the executable then sees per-device shapes)."""
    if want is None or got is None:
        return want is None  # a signature we cannot read is not checked
    if num_partitions > 1:
        want, got = ([[len(d) for d in side] for side in sig] for sig in (want, got))
    return list(map(list, want)) == list(map(list, got))


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

# ------------------------------------------------------- per-function shared state


class _FunRecord:
    __slots__ = ("options", "reads", "state")


_MISSING = object()
# function -> [record], by identity and weakly: a function its user dropped takes its
# records with it (issue 14)
_fun_records = WeakIdMap()
RECORDS_PER_CODE = 8   # (per function: its options and rebound globals / cells)
fun_stats = {"hits": 0, "misses": 0}


def _global_names(code, out):
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _global_names(c, out)
    return out


def _snapshot(code, g):
    """(name, value) of every global name `code` reads, and transitively the names
    read by functions of the same module it reads (a helper's own globals)."""
    out, seen, stack = {}, set(), [code]
    while stack:
        c = stack.pop()
        if id(c) in seen:   # (by identity: hashing a code object walks it)
            continue
        seen.add(id(c))
        for n in _global_names(c, set()):
            v = out[n] = g.get(n, _MISSING)
            if type(v) is types.FunctionType and v.__globals__ is g:
                stack.append(v.__code__)
    return tuple(sorted(out.items(), key=lambda kv: kv[0]))


def _cells(fun):
    out = []
    for c in fun.__closure__ or ():
        try:
            out.append(c.cell_contents)
        except ValueError:  # an empty cell
            out.append(_MISSING)
    return tuple(out)


def _same(xs, ys):
    return len(xs) == len(ys) and all(a is b for a, b in zip(xs, ys))


CONTENTS_LIMIT = 256   # objects looked at per value read (a longer tail is not checked)
NUMPY_HASH_BYTES = 1 << 16   # NumPy arrays up to this size are compared by content
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
           types.MethodType, types.CodeType, functools.partial)


def _walked(v) -> bool:
    """Whether `v` can hold values that change in place: a list, dict, set or tuple, a
    NumPy array, or a user object with a `__dict__` (not a module, function, class, or
    an object of astjax's, jaxlib's or NumPy's own, whose caches change under it)."""
    t = type(v)
    if t in (list, dict, set, tuple) or t is np.ndarray:
        return True
    if isinstance(v, _OPAQUE) or not hasattr(v, "__dict__"):
        return False
    return not t.__module__.startswith(("astjax", "jax", "numpy", "builtins"))


def contents(v):
    """What a value read while staging holds that can change in place without the value
    being rebound (`cfg["lr"] = 2.0`, `box[0] = x`, `model.scale = 3`, `w[:] = 0` of a
    small NumPy array), as a flat list of objects (compared by identity) -- or None for a
    value with nothing to change (a number, a module, a function, an astjax Array).
    Breadth-first, at most CONTENTS_LIMIT objects; holds its objects, so an address is
    never reused by another while the record lives."""
    if not _walked(v):
        return None
    out, queue, seen = [], collections.deque([v]), set()
    while queue and len(out) < CONTENTS_LIMIT:
        x = queue.popleft()
        out.append(x)
        if not _walked(x) or id(x) in seen:
            continue
        seen.add(id(x))
        t = type(x)
        if t is np.ndarray:
            out.append(hash(x.tobytes()) if x.nbytes <= NUMPY_HASH_BYTES else
                        (x.__array_interface__["data"], x.shape, x.strides))
        elif t is dict:
            out.append(len(x))
            for k, e in x.items():
                queue.append(k)
                queue.append(e)
        elif t in (list, tuple, set):
            out.append(len(x))
            queue.extend(x)
        else:
            out.append(len(vars(x)))
            for k, e in vars(x).items():
                queue.append(k)
                queue.append(e)
    return out


def _same_contents(recorded, values):
    """`values` (each the same object as recorded) hold what they held (`contents`)."""
    for rec, v in zip(recorded, values):
        if rec is not None:
            now = contents(v)
            if len(now) != len(rec) or not all(
                    a is b or (type(a) is int and type(b) is int and a == b)
                    or (type(a) is tuple and a == b) for a, b in zip(rec, now)):
                return False
    return True


def _reachable(fun):
    """`fun` and the plain functions its closure cells hold, transitively (a local
    helper `loss` captured by `lambda x: loss(x) * 2` reads what `loss` captures)."""
    out, stack, seen = [], [fun], set()
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f)
        stack.extend(c for c in _cells(f) if type(c) is types.FunctionType)
    return out


class Reads:
    """What staging a plain Python function may have read that can be rebound between
    calls: its name and qualified name (they name the program), the closure cell
    contents and default values (each by identity) of it and of the functions its cells
    hold, and the value (by identity) of every global name their code reads (`co_names`
    of it and its nested code, and of the same module's functions it reads,
    transitively); with `values` (an eager transformation's, which JAX traces on every
    call), also what those values hold (`contents`): a change in place is seen too.
    `same(fun)`: none was rebound or changed since. Holds no reference to the function
    itself (records are kept weakly by it)."""
    __slots__ = ("names", "cells", "defaults", "kwdefaults", "snapshots", "contents")

    def __init__(self, fun, values=False):
        self.names = (fun.__name__, fun.__qualname__)
        fs, self.cells, self.defaults, self.kwdefaults = self._values(fun)
        self.snapshots = tuple(_snapshot(f.__code__, f.__globals__) for f in fs)
        self.contents = tuple(contents(v) for v in self._read()) if values else ()

    def _read(self):
        """Every value read, in a fixed order: cells, defaults, keyword defaults, globals."""
        return (*self.cells, *self.defaults, *(v for _, v in self.kwdefaults),
                *(v for snap in self.snapshots for _, v in snap))

    @staticmethod
    def _values(fun):
        fs = _reachable(fun)
        return (fs, tuple(c for f in fs for c in _cells(f)),
                tuple(d for f in fs for d in f.__defaults__ or ()),
                tuple(kv for f in fs for kv in sorted((f.__kwdefaults__ or {}).items())))

    def same(self, fun) -> bool:
        if self.names != (fun.__name__, fun.__qualname__):
            return False
        fs, cells, defaults, kw = self._values(fun)
        return (_same(self.cells, cells) and _same(self.defaults, defaults)
                and [k for k, _ in self.kwdefaults] == [k for k, _ in kw]
                and _same([v for _, v in self.kwdefaults], [v for _, v in kw])
                and len(fs) == len(self.snapshots)   # (the same functions: cells checked)
                and all(f.__globals__.get(n, _MISSING) is v
                        for f, snap in zip(fs, self.snapshots) for n, v in snap)
                and (not self.contents or _same_contents(self.contents, self._read())))


def plain_function(fun):
    """The plain Python function under transformation wrappers (`.fun` of astjax's,
    `.func` of a partial), or None."""
    for _ in range(64):
        if type(fun) is types.FunctionType:
            return fun
        inner = getattr(fun, "fun", None)
        if inner is None and isinstance(fun, functools.partial):
            inner = fun.func
        if inner is None or inner is fun:
            return None
        fun = inner
    return None


class Guarded:
    """A wrapper's own state (`make()`), made anew once a global or captured value of
    the plain function under it was rebound (`Reads`): a wrapper of a wrapper
    (`hessian = jacfwd(jacrev(f))`, `vmap(grad(f))`), which `shared_state` does not
    share, is staged again then, as JAX's eager transformations trace on every call."""
    __slots__ = ("make", "state", "reads")

    def __init__(self, make):
        self.make, self.state, self.reads = make, None, None

    def get(self, fun):
        inner = plain_function(fun)
        if self.state is None or (inner is not None and not self.reads.same(inner)):
            self.state = self.make()
            self.reads = Reads(inner, values=True) if inner is not None else None
        return self.state


def shares(fun, options) -> bool:
    """Whether `shared_state(fun, options, ...)` shares a state (a plain Python
    function, hashable options) rather than making a new one on every call."""
    return type(fun) is types.FunctionType and hashable(options)


def shared_state(fun, options, make, values=False):
    """The state (`make()`'s result) shared by every wrapper (`jit(f)`, `grad(f)`, ...)
    of a plain Python function with the same `options`, as JAX keys its caches on the
    function and the transformation, not on the wrapper object (issue 14).

    A record is reused only for the same function object (as JAX keys its caches:
    a function made again, even of the same code and captured values, is staged
    again, since what its staging reads -- a library's thread-local mode, an
    object's attribute -- may have changed; chex's `chexify` relies on it), while
    nothing its staging may have read was rebound (`Reads`): a function called after
    one of its globals or captured values was rebound gets a fresh state, so staging
    is never reused stale; with `values` (an eager transformation's state: JAX traces
    those on every call), also once a value they hold was changed in place (a `jit` or
    `checkpoint` keeps JAX's rule: its staging's own side effects on a captured counter
    do not stage it again). Anything else (a callable object, a partial, unhashable
    options) gets `make()`."""
    if not shares(fun, options):
        return make()
    records = _fun_records.get(fun)
    if records is None:
        records = _fun_records[fun] = []
    for i, r in enumerate(records):
        if r.options == options and r.reads.same(fun):
            if i:
                records.insert(0, records.pop(i))
            fun_stats["hits"] += 1
            return r.state
    fun_stats["misses"] += 1
    r = _FunRecord()
    r.options, r.reads, r.state = options, Reads(fun, values), make()
    records.insert(0, r)
    del records[RECORDS_PER_CODE:]
    return r.state
