"""The XLA runtime: the only module that touches jaxlib internals.

- one PJRT client per process (CPU; ASTJAX_NUM_CPU_DEVICES sets the device count),
- `Array`: a device buffer with an aval; results stay on device, dispatch is async,
- `Executable`: compiled StableHLO with a short call path,
- the eager backend: one cached executable per (primitive, params, avals), so that
  operators on `Array`s outside `jit` run on XLA as well.
"""
from __future__ import annotations

import os
import threading

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

try:
    from jaxlib import xla_client as xc  # noqa: E402
    import jaxlib  # noqa: E402
except ImportError as e:  # pragma: no cover
    raise ImportError("astjax needs jaxlib==0.10.2: pip install 'jaxlib==0.10.2'") from e

from astjax import core, dtypes  # noqa: E402
from astjax.array_methods import ArrayMethods  # noqa: E402
from astjax.core import ShapedArray  # noqa: E402
from astjax.errors import ArgumentError  # noqa: E402

SUPPORTED_JAXLIB = "0.10.2"
if jaxlib.__version__ != SUPPORTED_JAXLIB:  # pragma: no cover
    raise ImportError(f"astjax supports jaxlib=={SUPPORTED_JAXLIB} only (it drives private "
                      f"jaxlib interfaces); found jaxlib {jaxlib.__version__}. Install it "
                      f"with: pip install 'jaxlib=={SUPPORTED_JAXLIB}'")

# ------------------------------------------------------------------------- client

_lock = threading.Lock()
_client = None


def client():
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                n = int(os.environ.get("ASTJAX_NUM_CPU_DEVICES", "1"))
                _client = xc.make_cpu_client(num_devices=n) if n > 1 else xc.make_cpu_client()
    return _client


def devices():
    return client().local_devices()


_default_device = None


def default_device():
    global _default_device
    if _default_device is None:
        _default_device = devices()[0]
    return _default_device


class _Sharding(xc.SingleDeviceSharding):
    """What jaxlib's C++ side asks of a single-device sharding."""

    @property
    def memory_kind(self):
        return self._memory_kind

    def _to_xla_hlo_sharding(self, ndim):
        return xc.HloSharding.replicate()


_shardings: dict = {}


def sharding_for(device):
    s = _shardings.get(device)
    if s is None:
        s = _shardings[device] = _Sharding(device)
    return s

# -------------------------------------------------------------------------- arrays


class Array(ArrayMethods):
    """An array on a device. Operations on it outside `jit` run eagerly on XLA."""
    __slots__ = ("_buf", "aval", "_npy")
    __array_priority__ = 100

    def __init__(self, buf, aval: ShapedArray):
        self._buf, self.aval, self._npy = buf, aval, None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)

    def _value(self) -> np.ndarray:
        if self._npy is None:
            if self.aval.dtype in (dtypes.bfloat16,):
                v = self._buf._single_device_array_to_np_array_did_copy()[0]
            else:
                v = np.asarray(self._buf)
            self._npy = v
        return self._npy

    def __array__(self, dtype=None, copy=None):
        v = self._value()
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

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
        return self._buf.sharding._device if hasattr(self._buf, "sharding") else default_device()

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
        v = self._value()
        prefix = "Array("
        if v.ndim == 0:
            body = repr(v[()].item()) if v.dtype == np.bool_ else np.array2string(v)
        else:
            body = np.array2string(v, separator=", ", prefix=prefix)
        extra = ", weak_type=True" if self.weak_type else ""
        return f"{prefix}{body}, dtype={self.dtype.name}{extra})"

    def __str__(self):
        return str(self._value())

    def __reduce__(self):
        return (device_put, (self._value(),))


def _is_device_array(x):
    return type(x) is Array


def device_put(x, device=None, weak_type=None) -> Array:
    """Copy a NumPy value (or Python scalar) to `device`, applying astjax's dtype
    policy (32-bit unless x64)."""
    if isinstance(x, Array):
        if device is None or device == x.device:
            return x
        x = x._value()
    aval = intern_aval(_aval_of_host(x, weak_type))
    return Array(put_host(x, aval, device), aval)


# Avals of Arrays made here (device_put, executable results) are interned: one
# ShapedArray object per (shape, dtype, weak_type), kept alive for the process. The
# jit fast path keys its cache on `id(x.aval)`, which is sound only for these.
_interned: dict = {}


def intern_aval(aval: ShapedArray) -> ShapedArray:
    return _interned.setdefault(aval, aval)


def is_interned(aval) -> bool:
    return _interned.get(aval) is aval


_IMMUTABLE = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


def put_host(x, aval: ShapedArray, device=None):
    """Host value -> device buffer with the given (already canonical) aval."""
    device = device or _default_device or default_device()
    return xc.batched_device_put(aval, sharding_for(device), [np.asarray(x, aval.dtype)],
                                 [device], True, False, _IMMUTABLE, enable_x64=True)


def _aval_of_host(x, weak_type=None) -> ShapedArray:
    if isinstance(x, core.Tracer):
        raise ArgumentError("a staged value cannot be moved to a device while staging")
    try:
        aval = core.get_aval(x)
    except TypeError:
        arr = np.asarray(x)
        if arr.dtype == object or arr.dtype.kind in "USV":
            raise ArgumentError(f"{type(x).__name__} value {x!r:.60} is not an array") from None
        aval = ShapedArray(arr.shape, dtypes.canonicalize(arr.dtype))
    if weak_type is not None:
        aval = aval.update(weak_type=weak_type)
    return aval


def to_buffer(x, device=None):
    if type(x) is Array:
        return x._buf
    return device_put(x, device)._buf


def device_get(x):
    from astjax import tree_util
    return tree_util.tree_map(lambda a: a._value() if isinstance(a, Array) else a, x)


def block_until_ready(x):
    from astjax import tree_util
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf._buf.block_until_ready()
    return x

# --------------------------------------------------------------------- executables


class Executable:
    """A compiled module: `call(*args)` takes Arrays / host values, returns Arrays."""

    def __init__(self, text: str, in_avals, out_avals, device=None, donated=()):
        self.text = text
        self.in_avals = list(in_avals)
        self.out_avals = [intern_aval(a) for a in out_avals]
        self.device = device or default_device()
        opts = xc.CompileOptions()
        opts.device_assignment = xc.DeviceAssignment.create(np.array([[self.device.id]]))
        self.exe = client().compile_and_load(text.encode(), xc.DeviceList((self.device,)), opts)
        sh = sharding_for(self.device)
        self.handlers = [xc.array_result_handler(a, sh, committed=True, _skip_checks=True)
                         for a in self.out_avals]

    def call_buffers(self, bufs):
        """Run on device buffers (consts first); returns a list of Arrays. This is the
        hot path of every compiled call: keep it short."""
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        return list(map(Array, outs, self.out_avals))

    def __call__(self, *args):
        dev = self.device
        return self.call_buffers([a._buf if type(a) is Array else device_put(a, dev)._buf
                                  for a in args])

    def as_text(self):
        return self.exe.hlo_modules()[0].to_string() if hasattr(self.exe, "hlo_modules") else self.text

# ---------------------------------------------------------------------- eager ops

_eager_cache: dict = {}


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    return v


def eager_apply(prim, args, params):
    """Run one primitive on concrete values through a cached XLA executable."""
    avals = [_aval_of_host(a) if type(a) is not Array else a.aval for a in args]
    try:
        key = (prim, tuple(sorted((k, _hashable(v)) for k, v in params.items())), tuple(avals))
        hash(key)
    except TypeError:
        key = None
    exe = _eager_cache.get(key) if key is not None else None
    if exe is None:
        from . import stablehlo
        invars = [core.Var(a) for a in avals]
        out = core.abstract_eval_rules[prim](*avals, **params)
        out_avals = out if prim.multiple_results else [out]
        outvars = [core.Var(a) for a in out_avals]
        jaxpr = core.Jaxpr([], invars, outvars, [core.Eqn(prim, invars, outvars, params)])
        exe = Executable(stablehlo.lower_module(jaxpr, f"eager_{prim.name}"), avals, out_avals)
        if key is not None:
            _eager_cache[key] = exe
    outs = exe(*args)
    return outs if prim.multiple_results else outs[0]


core.eager_backend = eager_apply
