"""The XLA runtime on jaxlib: the client, arrays, executables and eager operations.

- one PJRT client per process (its platform: `codegen.platforms`),
- `Array`: a device buffer with an aval; results stay on device, dispatch is async;
  `CommittedArray`: one committed to its device, which computations on it use
  (`placement`, JAX's rule),
- `Executable`: compiled StableHLO with a short call path,
- the eager backend: one cached executable per (primitive, params, avals), so that
  operators on `Array`s outside `jit` run on XLA as well,
- two events, compile and execute (`compile_listeners`, `execute_listeners`), that
  higher layers subscribe to instead of replacing runtime functions.
"""
from __future__ import annotations

import copy
import gc
import os
import threading
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

try:
    from jaxlib import xla_client as xc  # noqa: E402
    import jaxlib  # noqa: E402
except ImportError as e:  # pragma: no cover
    raise ImportError("astjax needs jaxlib==0.10.2: pip install 'jaxlib==0.10.2'") from e

from astjax import core, dtypes, tree_util, user_warnings, value_tables  # noqa: E402
from astjax.config import config  # noqa: E402
from astjax.core import ShapedArray  # noqa: E402
from astjax.ir import KeyDataAval  # noqa: E402
from astjax.errors import (ArgumentTypeError, ArgumentValueError,  # noqa: E402
                           JaxRuntimeError, caller_location)
from astjax.sharding_impls import SingleDeviceSharding, context_meshes  # noqa: E402

from . import compile_cache, platforms, stablehlo, xla_errors  # noqa: E402
from .compile_cache import set_compiler_options  # noqa: E402,F401 (codegen.spmd's)
from .jax_imports import without_jax  # noqa: E402
from .runtime_events import (compile_listeners, execute_listeners, h2d_hook,  # noqa: E402,F401
                             notify_execute, subscribe, unsubscribe)

Device = xc.Device  # `jax.Device`: jaxlib's own device class

SUPPORTED_JAXLIB = "0.10.2"
if jaxlib.__version__ != SUPPORTED_JAXLIB:  # pragma: no cover
    raise ImportError(f"astjax supports jaxlib=={SUPPORTED_JAXLIB} only (it drives private "
                      f"jaxlib interfaces); found jaxlib {jaxlib.__version__}. Install it "
                      f"with: pip install 'jaxlib=={SUPPORTED_JAXLIB}'")

# ------------------------------------------------------------------------- client

_lock = threading.Lock()
_client = None


def _xla_gc_callback(*_):
    """Drain jaxlib's queue of deferred Python releases, as JAX does from `gc`."""
    xc._xla.collect_garbage()


def client():
    """The process's PJRT client (made once; registers the jaxlib garbage hook)."""
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                # jaxlib records a Python traceback per execution and, when the same
                # input buffers are passed again, never frees it (56 B per call,
                # measured; tests/test_memory.py). astjax reads no jaxlib traceback.
                xc._xla.set_tracebacks_enabled(False)
                _client = platforms.make_client()  # platform choice: see "platforms" below
                if _xla_gc_callback not in gc.callbacks:
                    gc.callbacks.append(_xla_gc_callback)
    return _client


def devices():
    return client().local_devices()


_default_device = None
move_operands = False   # jax_default_device is set: eager operands go to _default_device


def default_device():
    """The device results are put on (the first local device unless
    `jax_default_device` says otherwise)."""
    global _default_device
    if _default_device is None:
        _default_device = devices()[0]
    return _default_device


def set_default_device(dev, *, move: bool):
    """Make `dev` the default device (`astjax.default_device`); with `move`, eager
    operations first copy Arrays on other devices there. Drops the eager executables
    compiled for the old device."""
    global _default_device, move_operands
    _default_device, move_operands = dev, move
    clear_eager_caches()


def on_default_device(args):
    """`on_device(args, the default device)` (committed Arrays stay, as in JAX)."""
    return on_device(args, default_device())


def on_device(args, dev):
    """`args` with every uncommitted single-device Array not on `dev` copied there
    (still uncommitted)."""
    return [Array(put_host(a._value(), a.aval, dev), a.aval)
            if type(a) is Array and a.device != dev else a for a in args]


def placement(args, names=None, what="jitted computation"):
    """(device, committed) of a computation on `args` (JAX's rule): the device of its
    committed Arrays (results committed), else the default one; committed Arrays on
    two devices: JAX's ValueError naming both (`names` or `names()`, else positions)."""
    dev = first = None
    for i, a in enumerate(args):
        if isinstance(a, CommittedArray):   # (HostMemoryArrays too)
            d = a.device
            if dev is None:
                dev, first = d, i
            elif d != dev:
                known = names() if callable(names) else names   # (made on demand)

                def arg(j):
                    n, x = known[j] if known and j < len(known) else j, args[j]
                    return (f"argument {n} of {what} with shape {x.dtype.name}"
                            f"[{','.join(map(str, x.shape))}] and with device ids "
                            f"[{x.device.id}] on platform {x.device.platform.upper()}")
                raise ArgumentValueError(
                    f"Received incompatible devices for jitted computation. Got "
                    f"{arg(first)} and {arg(i)}", loc=caller_location(),
                    hint="device_put the arguments on one device, or pass uncommitted ones")
    if dev is None:
        return _default_device or default_device(), False
    return dev, True


class _Sharding(xc.SingleDeviceSharding):
    """What jaxlib's C++ side asks of a single-device sharding."""

    @property
    def memory_kind(self):
        return self._memory_kind

    def _to_xla_hlo_sharding(self, ndim):
        return _REPLICATED  # asked on every transfer: one object


_REPLICATED = xc.HloSharding.replicate()
_shardings: dict = {}


def sharding_for(device, kind=None):
    """jaxlib's sharding of a buffer on `device`, in memory `kind` (None: the default)."""
    key = device if kind is None or kind == "device" else (device, kind)
    s = _shardings.get(key)
    if s is None:
        s = _shardings[key] = (_Sharding(device) if key is device
                               else _Sharding(device, memory_kind=kind))
    return s

# -------------------------------------------------------------------------- arrays

_OBJECT = np.dtype(object)
_asarray = np.asarray


def host_array(v, dtype=None, copy=None):
    """`__array__`'s answer for an array whose host value is `v`: `v` itself, or
    converted to `dtype`, or copied when `copy` asks for it."""
    if dtype is not None and np.dtype(dtype) != v.dtype:
        if v.dtype.kind == "c" and np.dtype(dtype).kind not in "cb":  # NumPy's warning,
            v = user_warnings.warn_complex_to_real(v)                 # at the user's line
        return v.astype(dtype)
    return v.copy() if copy else v


class Array:
    """An array on a device. Operations on it outside `jit` run eagerly on XLA. Its
    operators and array methods are installed by `astjax/numpy/array_methods.py`."""
    __slots__ = ("_buf", "aval", "_npy", "__weakref__")   # (weakly referable, as JAX's)
    __array_priority__ = 100

    def __init__(self, buf, aval: ShapedArray):
        self._buf, self.aval, self._npy = buf, aval, None
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)

    def __array__(self, dtype=None, copy=None):
        # one frame; read once by jaxlib's buffer protocol (zero-copy, read-only on CPU)
        v = self._npy
        if v is None:
            v = _asarray(self._buf)
            if v.dtype is _OBJECT:   # NumPy's 0-d object array: no buffer protocol
                v = self._host_copy()
            self._npy = v
        elif self._buf.is_deleted():   # (deleted or donated since it was read: JAX's error)
            self._check_live()
        if dtype is None and not copy:
            return v
        return host_array(v, dtype, copy)

    _value = __array__   # () -> the value on the host, a read-only NumPy array

    def _host_copy(self):
        """The host value of a buffer jaxlib's buffer protocol does not give: a deleted
        one (JAX's error) or one of an ml_dtypes dtype (bfloat16, float8, int4...: no
        buffer format), which jaxlib copies out."""
        self._check_live()
        return without_jax(self._buf._single_device_array_to_np_array_did_copy)[0]

    def block_until_ready(self):
        self._buf.block_until_ready()
        return self

    def is_ready(self):
        return self._buf.is_ready()

    def is_deleted(self):
        return self._buf.is_deleted()

    def delete(self):
        self._buf.delete()

    def devices(self):
        return {self.device}

    @property
    def device(self):
        return self._buf._sharding._device   # (jaxlib arrays have no public `sharding`)

    @property
    def committed(self) -> bool:
        """Whether the array is committed to its device (`device_put(x, device)`, or
        computed from such an array); False: astjax may move it (`placement`)."""
        return False

    def addressable_data(self, index: int) -> "Array":
        """The data of addressable shard `index`: for a one-device array, the array
        itself (whatever `index`, as in JAX)."""
        self._check_live()
        return type(self)(self._buf, self.aval)

    def _check_live(self):
        """JAX's RuntimeError for a deleted (e.g. donated) array."""
        if self.is_deleted():
            raise RuntimeError(f"Array has been deleted with shape={self.dtype.name}"
                               f"[{','.join(map(str, self.shape))}].")

    is_fully_replicated = is_fully_addressable = True   # (one device: all of it, here)

    @property
    def addressable_shards(self) -> list:
        """This process's parts (`Shard`s): on one device, the whole array."""
        return [Shard(self.device, (slice(None),) * self.ndim, self)]

    def on_device_size_in_bytes(self) -> int:
        """The bytes the array occupies on its device (jaxlib's figure)."""
        return self._buf.on_device_size_in_bytes()

    def unsafe_buffer_pointer(self) -> int:
        """The address of the array's device buffer (valid while the array lives)."""
        return self._buf.unsafe_buffer_pointer()

    @property
    def sharding(self):
        """The layout: the whole array on its one device."""
        return SingleDeviceSharding(self.device)

    def copy_to_host_async(self):
        self._buf._copy_single_device_array_to_host_async()

    def item(self):
        return self._value().item()

    def tolist(self):
        return self._value().tolist()

    def __bool__(self):
        return bool(self._value())

    def __int__(self):
        return int(self._value())

    def __float__(self):
        return float(self._value())

    def __complex__(self):
        return complex(self._value())

    def __index__(self):
        if not dtypes.is_int(self.dtype):
            raise TypeError(f"only integer arrays can be used as an index, got {self.dtype}")
        return int(self._value())

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'")

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value()[()], spec)
        return format(self._value(), spec)

    def __repr__(self):
        v, width = self._value(), np.get_printoptions()["linewidth"]
        # as JAX: an empty array shows its shape; the dtype goes under a full last line
        body = f"[], shape={v.shape}" if v.size == 0 else np.array2string(
            v, separator=", ", prefix="Array(", suffix=",", max_line_width=width)
        dtype = f"dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
        fits = len(body) - body.rfind("\n") + len(dtype) + 3 <= width
        return f"Array({body},{' ' if fits else ' ' * 6}{dtype})"

    def __str__(self):
        return str(self._value())

    def __reduce__(self):
        return (device_put, (self._value(),))


class Shard:
    """One device's part of an array (`x.addressable_shards`): `device`, `index`
    (a tuple of slices into the global value) and `data` (an Array on `device`)."""
    __slots__ = ("device", "index", "data", "replica_id")

    def __init__(self, device, index, data, replica_id=0):
        self.device, self.index, self.data, self.replica_id = device, index, data, replica_id

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")   # (its str, as JAX)


class CommittedArray(Array):
    """An `Array` committed to its device: made by `device_put(x, device)` or computed
    from one. The fast paths take plain `Array`s only (`type(x) is Array`): committed
    arguments go through `placement`, at no cost to the uncommitted case."""
    __slots__ = ()

    @property
    def committed(self) -> bool:
        """True: computations on this array run on its device."""
        return True


# the single-device array types (`ONE_DEVICE`: also those whose value a module may
# carry as a constant, `stablehlo.embedded_constants`)
ONE_DEVICE = _SINGLE = (Array, CommittedArray)


def device_put(x, device=None, weak_type=None) -> Array:
    """Copy a NumPy value (or Python scalar) to `device` (the result committed to it),
    applying astjax's dtype policy (32-bit unless x64); no device: an Array stays
    where it is, a host value goes to the default device uncommitted."""
    t = type(x)
    if t in _SINGLE:
        if device is None:
            return x
        if device == x.device:
            return x if t is CommittedArray else CommittedArray(x._buf, x.aval)
        x = x._value()  # another device
    elif isinstance(x, CommittedArray):   # in host memory (codegen/host_memory.py)
        if device is None:
            return x                     # (it stays there, as in JAX)
        raise ArgumentValueError(
            "Memory kind mismatch with xla::PjRtBuffers. Got sharding with memory kind "
            f"'device' and a buffer with memory_kind '{x.sharding.memory_kind}'",
            hint="device_put it with SingleDeviceSharding(device, memory_kind='device')")
    elif isinstance(x, Array):
        x = x._value()  # a multi-device array (gathered)
    aval = intern_aval(_aval_of_host(x, weak_type))
    if device is None:
        return Array(put_host(x, aval), aval)
    return CommittedArray(put_host(x, aval, device), aval)


# Avals of Arrays made here (device_put, executable results) are interned: one
# ShapedArray object per (shape, dtype, weak_type), kept alive for the process. The
# jit fast path keys its cache on `id(x.aval)`, which is sound only for these.
_interned: dict = {}


interned_ids: set = set()  # ids of interned avals (they live for the process)


def intern_aval(aval: ShapedArray) -> ShapedArray:
    if type(aval) is KeyDataAval:   # a staged variable's key annotation (equal to the plain
        aval = ShapedArray.update(aval)   # aval): an Array of key data is not typed by it
    out = _interned.setdefault(aval, aval)
    if out is aval:
        interned_ids.add(id(aval))
    return out


def is_interned(aval) -> bool:
    return _interned.get(aval) is aval


_IMMUTABLE = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
# from this many results on, a call makes them with the cyclic collector paused
# (`Executable._call_many`); below it the pause would cost more than it saves
MANY_RESULTS = 256
_gc_isenabled, _gc_disable, _gc_enable = gc.isenabled, gc.disable, gc.enable


def put_host(x, aval: ShapedArray, device=None, kind=None):
    """Host value -> device buffer with the given (already canonical) aval, in
    memory `kind` (None: device memory; `codegen/host_memory.py`)."""
    stablehlo.check_runtime_dtype(aval.dtype)
    h2d_hook[0] is None or h2d_hook[0](aval, device)   # (a transfer guard is on)
    device = device or _default_device or default_device()
    return xc.batched_device_put(aval, sharding_for(device, kind),
                                 [np.asarray(value_tables.host_value(x), aval.dtype)],
                                 [device], True, False, _IMMUTABLE, enable_x64=True)


def _aval_of_host(x, weak_type=None) -> ShapedArray:
    if isinstance(x, core.Tracer):
        raise ArgumentTypeError("a staged value cannot be moved to a device while staging")
    try:
        aval = core.get_aval(x)
    except TypeError:
        arr = np.asarray(x)
        if arr.dtype == object or arr.dtype.kind in "USV":
            raise ArgumentTypeError(f"{type(x).__name__} value {x!r:.60} is not an array") from None
        aval = ShapedArray(arr.shape, dtypes.canonicalize(arr.dtype))
    if weak_type is not None:
        aval = aval.update(weak_type=weak_type)
    return aval


def device_get(x):
    """Pytree `x` with each `Array` leaf copied to the host as a NumPy array."""
    return tree_util.tree_map(lambda a: a._value() if isinstance(a, Array) else a, x)


def block_until_ready(x):
    """Wait until every `Array` leaf of pytree `x` is computed; return `x`. Builtin
    containers: jaxlib's C++ flatten and one batched wait; what C++ sees as a leaf but
    is no Array (registered node, OrderedDict, multi-device array): `tree_util`."""
    if type(x) is Array:
        x._buf.block_until_ready()
        return x
    try:
        leaves = cpp_pytrees.flatten(x)[0]
    except Exception:   # noqa: BLE001 -- e.g. unsortable dict keys: tree_util's walk
        leaves = [x]
    bufs = []
    for leaf in leaves:
        if type(leaf) is Array or type(leaf) is CommittedArray:
            bufs.append(leaf._buf)
            continue
        for a in tree_util.tree_leaves(leaf):
            if isinstance(a, Array):
                a.block_until_ready()   # (a multi-device array waits for all its shards)
    if bufs:
        xc._xla.batched_block_until_ready(bufs)
    return x


# astjax's own instance of jaxlib's C++ pytree registry (JAX's is another object: no
# registration is shared). It knows builtin containers only; `tree_util` stays the
# user-facing implementation. Also used by codegen/cpp_jit.py.
cpp_pytrees = xc._xla.pytree.PyTreeRegistry(
    enable_none=True, enable_tuple=True, enable_namedtuple=False, enable_list=True,
    enable_dict=True)

# --------------------------------------------------------------------- executables


class Executable:
    """A compiled module: `call(*args)` takes Arrays / host values, returns Arrays.

    `api.Jitted.__call__`'s fast path reads `exe`, `handlers` and `out_avals`
    (interned) directly and does what `call_buffers` does: keep those three
    meaning the same, or give `_Entry.compile` what it needs."""

    def __init__(self, text: str, in_avals, out_avals, device=None, donated=(),
                 compiler_options=()):
        self.text = text
        self.in_avals = list(in_avals)
        self.out_avals = [intern_aval(a) for a in out_avals]
        self.device = device or default_device()
        self.compiler_options = tuple(compiler_options)
        opts = xc.CompileOptions()
        opts.device_assignment = xc.DeviceAssignment.create(np.array([[self.device.id]]))
        set_compiler_options(opts, self.compiler_options)
        self.exe = compile_mlir(text, (self.device,), opts)
        sh = self._sharding = sharding_for(self.device)
        self._devices = [self.device]
        self.handlers = [xc.array_result_handler(a, sh, committed=True, _skip_checks=True)
                         for a in self.out_avals]
        self.wrap, self._twin = Array, None   # results: uncommitted Arrays
        self.many = len(self.out_avals) >= MANY_RESULTS   # built with the collector paused

    def committed(self):
        """This executable with committed results (`CommittedArray`s), sharing the
        compiled program."""
        if self._twin is None:
            twin = self._twin = copy.copy(self)
            twin.wrap, twin._twin = CommittedArray, twin
        return self._twin

    def call_buffers(self, bufs):
        """Run on device buffers (consts first); returns a list of Arrays. This is the
        hot path of every compiled call: keep it short."""
        if self.many and _gc_isenabled():
            return self._call_many(bufs)
        try:
            outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        except JaxRuntimeError as e:   # (a failing FFI kernel: located, xla_errors)
            xla_errors.raise_if_ran(e, self.text)
            raise
        return list(map(self.wrap, outs, self.out_avals))

    def _call_many(self, bufs):
        """`call_buffers` for hundreds of results, with Python's cyclic collector paused
        while they are made. Every result is two new tracked objects (jaxlib's array
        and its Array), each allocation counts towards a collection, and none of them
        can be garbage while they are being made: 10,000 results would run ~28
        young-generation collections (and, through them, older-generation ones over
        the whole heap) that find nothing -- twice JAX's count, whose results are
        one object each. Paused, the young objects are examined once, at the next
        allocation after the pause. (A `gc.disable()` by another thread inside this
        window is undone by the `enable` here.)"""
        _gc_disable()
        try:
            outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
            return list(map(self.wrap, outs, self.out_avals))
        except JaxRuntimeError as e:
            xla_errors.raise_if_ran(e, self.text)
            raise
        finally:
            _gc_enable()

    def call_numpy(self, const_bufs, xs, avals):
        """Run on device buffers `const_bufs` followed by NumPy arrays `xs` of the
        avals `avals` (each put on the device here, in one frame: `jit` called on
        NumPy arguments); returns a list of Arrays."""
        put, sh, devs = xc.batched_device_put, self._sharding, self._devices
        bufs = [put(a, sh, [np.asarray(x, a.dtype)], devs, True, False, _IMMUTABLE,
                    enable_x64=True) for x, a in zip(xs, avals)]
        if const_bufs:
            bufs = const_bufs + bufs
        try:
            outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        except JaxRuntimeError as e:
            xla_errors.raise_if_ran(e, self.text)
            raise
        return list(map(Array, outs, self.out_avals))

    def __call__(self, *args, committed=False):
        """Run on Arrays (uncommitted ones elsewhere are copied to this executable's
        device) and host values; `committed`: the results are committed."""
        dev = self.device
        bufs = [a._buf if type(a) in _SINGLE and a.device == dev else device_put(a, dev)._buf
                for a in on_device(args, dev)]
        return (self.committed() if committed else self).call_buffers(bufs)

    def as_text(self):
        return self.exe.hlo_modules()[0].to_string() if hasattr(self.exe, "hlo_modules") else self.text

# ------------------------------------------------------------------------- events
# ---------------------------------------------------------------------- eager ops

_eager_cache: dict = {}


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    return v


# Eager fast path (issue 14): keyed on the ids of interned avals (a weak scalar: its
# dtype) and the params as given; weak scalars' device buffers reused. Else: by value.
_eager_fast: dict = {}
_scalar_bufs: dict = {}
_WEAK, _WeakConst = object(), core.WeakConst


def _fast_key(prim, args, params):
    key = [prim]
    for a in args:
        t = type(a)
        if t is Array:
            i = id(a.aval)
            if i not in interned_ids:
                return None
            key.append(i)
        elif t is CommittedArray:   # (and its device)
            i = id(a.aval)
            if i not in interned_ids:
                return None
            key.append(i)
            key.append(a.device)
        elif t is core.WeakConst and a.val.shape == ():
            key.append(_WEAK)
            key.append(a.val.dtype)
        else:
            return None
    key.append(tuple(params.items()))
    try:
        return key if hash(key := tuple(key)) is not None else None
    except TypeError:  # unhashable params: the general path
        return None


def scalar_buf(w, device=None):
    """The device buffer of weak scalar `w` (a 0-d `core.WeakConst`) on `device` (the
    default one), shared by every eager operation that uses its value."""
    v = w.val
    k = (v.dtype, v.tobytes(), None if device is _default_device else device)
    buf = _scalar_bufs.get(k)
    if buf is None:
        if len(_scalar_bufs) > 1024:
            _scalar_bufs.clear()
        buf = _scalar_bufs[k] = put_host(v, intern_aval(w.aval), device)
    return buf


def clear_eager_caches():
    """Drop every eager executable and cached scalar buffer (they are made again on
    the next call): `astjax.clear_caches`."""
    for d in (_eager_cache, _eager_fast, _scalar_bufs):
        d.clear()


# set by codegen.spmd (register_spmd): operations on arrays laid out over several
# devices, the partitioning primitives and those under `set_mesh` run as partitioned programs
_spmd_rule, _spmd_types, _spmd_prims, _spmd_context = None, (), frozenset(), None


def register_spmd(rule, array_types, prims, context):
    """`codegen.spmd` hands over operations on arrays laid out over several devices
    (`array_types`), partitioning primitives and, under `set_mesh`, all (`context`)."""
    global _spmd_rule, _spmd_types, _spmd_prims, _spmd_context
    _spmd_rule, _spmd_types, _spmd_prims, _spmd_context = (rule, tuple(array_types),
                                                           frozenset(prims), context)
    _eager_fast.clear()  # entries made before are plain single-device programs


# primitive -> rule(args, params) -> (prim, args, params): the operation that runs in
# its place on single-device operands (codegen/eager_programs.py: slices as dynamic ones)
eager_rewrites: dict = {}
memory_rule: list = [None, None]   # (rule, HostMemoryArray): set by codegen/host_memory.py


def eager_apply(prim, args, params):
    """Run one primitive on concrete values through a cached XLA executable, placed as
    `jit` places (`placement`), then tell `execute_listeners`, if any."""
    if move_operands:
        args = on_default_device(args)
    if prim in eager_rewrites and type(args[0]) in _SINGLE:
        prim, args, params = eager_rewrites[prim](args, params)
    mesh = context_meshes[0] and _spmd_context(prim, args)   # (set_mesh: on its mesh)
    fkey = None if mesh else _fast_key(prim, args, params)
    exe = _eager_fast.get(fkey) if fkey is not None else None
    if exe is not None:
        bufs = [scalar_buf(a, exe.device) if type(a) is _WeakConst else a._buf
                for a in args]
        try:
            outs = exe.exe.execute_sharded(bufs).consume_with_handlers(exe.handlers)
        except JaxRuntimeError as e:   # e.g. an uncommitted operand on another device
            xla_errors.raise_if_ran(e, exe.text)   # (not a program that ran)
            outs = None
        if outs is not None:
            if prim.multiple_results:
                outs = list(map(exe.wrap, outs, exe.out_avals))
            else:
                outs = exe.wrap(outs[0], exe.out_avals[0])
            if execute_listeners:
                notify_execute(prim.name, outs if prim.multiple_results else [outs])
            return outs
        fkey = None
    if mesh or prim in _spmd_prims or any(type(a) in _spmd_types for a in args):
        outs = _spmd_rule(prim, args, params)
    elif memory_rule[0] is not None and any(type(a) is memory_rule[1] for a in args):
        outs = memory_rule[0](prim, args, params)   # (arrays in host memory)
    else:
        dev, committed = placement(args, what=prim.name)
        exe = _eager_general(prim, args, params, dev)
        if fkey is not None and (committed or exe.device is _default_device):
            if len(_eager_fast) > 4096:
                _eager_fast.clear()
            _eager_fast[fkey] = exe.committed() if committed else exe
        outs = exe(*args, committed=committed)
        outs = outs if prim.multiple_results else outs[0]
    if execute_listeners:
        notify_execute(prim.name, outs if prim.multiple_results else [outs])
    return outs


def _eager_general(prim, args, params, device=None):
    """The executable of `prim` on these arguments' avals on `device` (None: the
    default one), cached by value."""
    device = device or default_device()
    avals = [_aval_of_host(a) if type(a) not in _SINGLE else a.aval for a in args]
    try:
        key = (prim, tuple(sorted((k, _hashable(v)) for k, v in params.items())),
               tuple(avals), device)
        hash(key)
    except TypeError:
        key = None
    exe = _eager_cache.get(key) if key is not None else None
    if exe is None:
        invars = [core.Var(a) for a in avals]
        out = prim.abstract_eval(*avals, **params)
        out_avals = out if prim.multiple_results else [out]
        outvars = [core.Var(a) for a in out_avals]
        jaxpr = core.Jaxpr([], invars, outvars, [core.Eqn(prim, invars, outvars, params)])
        exe = Executable(stablehlo.lower_module(jaxpr, f"eager_{prim.name}"), avals,
                         out_avals, device)
        if key is not None:
            _eager_cache[key] = exe
    return exe


# One of the three hooks by which a higher layer installs itself into a lower one
# (docs/architecture.md): primitives bound outside any staging run here. This line is
# the only place `core.eager_backend` is set.
core.eager_backend = eager_apply

# ======================================================================= platforms
# The client's platform and multi-process options: codegen/platforms.py.


def configure_distributed(**options):
    """Join a multi-process job (`astjax.distributed.initialize`; see
    `platforms.configure`). Only before the client exists."""
    check_not_started()
    platforms.configure(**options)


def check_not_started():
    """A RuntimeError once the client exists (a job must be joined before it starts)."""
    if _client is not None:
        raise RuntimeError("astjax.distributed.initialize() must be called before any "
                           "astjax computation (the runtime has started already)")


def global_devices():
    """Every device of the job, each with its `process_index` (one process: the
    local devices)."""
    return client().devices()


def platform() -> str:
    """'cpu', 'cuda' or 'rocm' (the default client's platform)."""
    return client().platform


def compile_mlir(text: str, devs, options):
    """StableHLO text -> loaded executable on `devs`, through the persistent compile
    cache when one is configured (codegen.compile_cache). XLA rejecting the text itself
    (an MLIR parse or verify error) is astjax's bug: an `InternalError` located at the
    equation whose lowering wrote the offending line. `compile_listeners` hear of each
    call with its duration."""
    try:
        t0 = time.perf_counter()
        text = compile_cache.refine_polymorphic_shapes(text)
        exe = compile_cache.compile_or_load(client(), text, devs, options)
        for fn in tuple(compile_listeners):
            fn(text, time.perf_counter() - t0)
        return exe
    except JaxRuntimeError as e:
        located = xla_errors.compile_failure(text, e, platform())
        if located is None:
            raise
        raise located from None

# ================================================================= several devices
# pmap's replicated programs and their arrays: codegen/replicated.py


def shards_of(arr):
    """The single-device arrays of a multi-device jaxlib array, in device order."""
    return without_jax(lambda: arr._arrays)
