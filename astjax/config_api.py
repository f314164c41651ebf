"""JAX's configuration surface: the flags' context managers (`jax.debug_nans`,
`jax.numpy_rank_promotion`, ...), `disable_jit`, `ensure_compile_time_eval`,
`clear_caches`, `live_arrays` and `print_environment_info`, and what makes the flags
take effect.

How each flag is honoured:

- `jax_disable_jit`: `jit`-compiled functions run their Python body op by op on
  concrete arrays (through the call hook of `api.Jitted`, `config.jit_call_hook`);
- `jax_debug_nans` / `jax_debug_infs`: every eager primitive's outputs are checked
  (a listener of the runtime's execute event, `runtime.execute_listeners`), and a
  jitted call whose outputs hold a NaN (inf) is run again op by op to name the
  primitive that made it; both raise `FloatingPointError` as JAX does;
- `jax_log_compiles`: each new compilation of a jitted function is logged on the
  `jax` logger (WARNING, as JAX);
- `jax_numpy_rank_promotion` / `jax_numpy_dtype_promotion`: read by jnp's
  promotion (numpy/operands.py); changing them, or `jax_default_matmul_precision`,
  drops the compiled caches, which were staged under the old setting;
- `jax_threefry_partitionable`: read by `random/threefry.py` while staging `split`
  and `random_bits`; changing it drops the compiled caches as the other staging flags;
- `jax_num_cpu_devices`: the number of CPU devices of the client made on first use
  (codegen/platforms.py); changing it afterwards is a RuntimeError, as in JAX;
- `jax_platform_name`: an alias of `jax_platforms` (the runtime's platform choice);
- `jax_default_device` (`jax.default_device(dev)`): eager operations and `jit` place
  their results on that device (a Device, or a platform name such as ``'cpu'``: its
  first device). Inside the block an uncommitted operand on another device is copied
  to the default device; a committed one (`device_put(x, device)`) keeps the
  computation on its device, as in JAX (`runtime.placement`).
  Changing the flag drops the compiled caches, which were built for the old device.
"""
from __future__ import annotations

import contextlib
import gc
import logging
import platform
import sys

import jaxlib
import numpy as np

from . import core, tree_util
from .api import Jitted, devices, process_index as _process_index
from .codegen import compile_cache, eager_programs, runtime
from .config import config, jit_call_hook
from .errors import ArgumentValueError, caller_location
from .precision_config import DotAlgorithmPreset
from .primitives.cond import clear_eager_stagings
from .trace_state import ensure_compile_time_eval  # noqa: F401  (jax.ensure_compile_time_eval)
from .tree_util import tree_leaves

__all__ = ["State", "disable_jit", "ensure_compile_time_eval", "clear_caches",
           "live_arrays", "print_environment_info", "enable_x64", "debug_nans", "debug_infs",
           "numpy_rank_promotion", "numpy_dtype_promotion", "default_matmul_precision",
           "log_compiles", "default_device", "threefry_partitionable", "host_count",
           "host_id", "host_ids", "process_indices", "copy_to_host_async"]

_logger = logging.getLogger("jax")


class State:
    """One configuration flag as JAX exposes it: `.value`, and calling it with a value
    gives a context manager that sets the flag inside the `with` block."""

    def __init__(self, name, check=None):
        self.name = name
        self._check = check

    @property
    def value(self):
        return config.read(self.name)

    @contextlib.contextmanager
    def __call__(self, new_value=True):
        if self._check is not None:
            new_value = self._check(new_value)
        old = config.read(self.name)
        config.update(self.name, new_value)
        try:
            yield
        finally:
            config.update(self.name, old)

    def __repr__(self):
        return f"State({self.name}={self.value!r})"


def _precision_name(p):
    # a Precision (or its name in any case) -> JAX's lower-case string; a dot algorithm
    # preset keeps its upper-case name
    name = getattr(p, "name", p)
    if not isinstance(name, str) or name in DotAlgorithmPreset.__members__:
        return name
    return name.lower()


enable_x64 = State("jax_enable_x64", bool)
debug_nans = State("jax_debug_nans", bool)
debug_infs = State("jax_debug_infs", bool)
log_compiles = State("jax_log_compiles", bool)
numpy_rank_promotion = State("jax_numpy_rank_promotion")
numpy_dtype_promotion = State("jax_numpy_dtype_promotion")
default_matmul_precision = State("jax_default_matmul_precision", _precision_name)
threefry_partitionable = State("jax_threefry_partitionable", bool)
threefry_partitionable.__doc__ = """`with astjax.threefry_partitionable(False):` random
keys split and bits drawn inside use JAX's original threefry counter layout."""


def _device(dev):
    """A `jax_default_device` value: None, a Device, or a platform name (its first
    device)."""
    if dev is None or hasattr(dev, "platform"):
        return dev
    if isinstance(dev, str):
        return devices(dev)[0]
    raise ArgumentValueError(f"jax_default_device must be a Device, a platform name or "
                             f"None, got {type(dev).__name__} {dev!r:.40}",
                             hint="pick one from astjax.devices()", loc=caller_location())


default_device = State("jax_default_device", _device)
default_device.__doc__ = """`with astjax.default_device(dev):` eager operations and
`jit` put their results on `dev` (a Device, or a platform name such as 'cpu')."""


def disable_jit(disable=True):
    """A context manager: inside, `jit` runs functions op by op (JAX's
    `jax.disable_jit`); also `config.update('jax_disable_jit', True)`."""
    return State("jax_disable_jit", bool)(disable)


def clear_caches():
    """Drop every compiled and staged function: each `jit`'s per-signature entries,
    the executables of eager operations and the bodies eager control flow staged
    (they are rebuilt on the next call)."""
    for obj in gc.get_objects():
        # a jit whose arguments were refused is kept alive by its traceback half-built
        if isinstance(obj, Jitted) and hasattr(obj, "_fast"):
            obj._cache.clear()
            obj._fast.clear()
    runtime.clear_eager_caches()
    eager_programs.clear()
    compile_cache._fun_records.clear()   # the states shared by wrappers of a function
    clear_eager_stagings()   # eager control flow's staged bodies


def live_arrays(platform=None):
    """The device arrays alive in this process (not deleted), on `platform` if given."""
    out = []
    for obj in gc.get_objects():
        if isinstance(obj, runtime.Array):
            try:
                if obj.is_deleted():
                    continue
                if platform is not None and obj.device.platform != platform:
                    continue
            except Exception:  # noqa: BLE001 -- a half-built array is not alive
                continue
            out.append(obj)
    return out


def print_environment_info(return_string=False):
    """Versions of jaxlib, NumPy and Python, the platform and the devices (printed, or
    returned with `return_string`)."""
    lines = [f"jaxlib:    {getattr(jaxlib, '__version__', '?')}",
             f"numpy:     {np.__version__}",
             f"python:    {sys.version.replace(chr(10), ' ')}",
             f"device info: {devices()[0].device_kind}-{len(devices())}, "
             f"{len(devices())} local devices",
             f"process_count: 1", f"platform: {platform.uname()}"]
    text = "\n".join(lines) + "\n"
    if return_string:
        return text
    print(text)
    return None


def process_indices(backend=None):
    """The indices of the processes that hold devices of `backend` (sorted)."""
    return sorted({d.process_index for d in devices(backend)})


def _renamed(old, new):
    import warnings
    warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will eventually be "
                  "removed; please update your code.", stacklevel=3)


def host_count(backend=None):
    """The old name of `process_count` (with JAX's rename warning)."""
    _renamed("process_count", "process_count")
    return len(process_indices(backend))


def host_id(backend=None):
    """The old name of `process_index` (with JAX's rename warning)."""
    _renamed("process_index", "process_index")
    return _process_index()


def host_ids(backend=None):
    """The old name of `process_indices` (with JAX's rename warning)."""
    _renamed("process_indexs", "process_indices")
    return process_indices(backend)


def copy_to_host_async(x):
    """Start copying every device-array leaf of pytree `x` to the host; returns `x`."""
    for leaf in tree_leaves(x):
        start = getattr(leaf, "copy_to_host_async", None)
        if start is not None:
            start()
    return x

# ------------------------------------------------------------------ honouring flags


def _check_values(where, outs):
    """FloatingPointError if an inexact output holds a NaN (debug_nans) or an inf
    (debug_infs)."""
    nans, infs = config.read("jax_debug_nans"), config.read("jax_debug_infs")
    for o in outs:
        if not isinstance(o, runtime.Array) or not np.issubdtype(o.dtype, np.inexact):
            continue
        v = np.asarray(o)
        if nans and np.isnan(v).any():
            raise FloatingPointError(f"invalid value (nan) encountered in {where}")
        if infs and np.isinf(v).any():
            raise FloatingPointError(f"invalid value (inf) encountered in {where}")


def _jit_call(jitted, args, kwargs):
    """`jit(f)(*args)` while a flag needs more than the fast path."""
    if config.read("jax_disable_jit"):
        return jitted.fun(*args, **kwargs)
    if config.read("jax_default_device") is not None:
        # leaves on another device are copied to the default one (`jax_default_device`)
        leaves, tree = tree_util.tree_flatten((args, kwargs))
        args, kwargs = tree_util.tree_unflatten(tree, runtime.on_default_device(leaves))
    before = len(jitted._cache)
    if config.read("jax_debug_key_reuse") and key_reuse_call[0] is not None:
        out = key_reuse_call[0](jitted, args, kwargs, lambda: jitted._call_slow(args, kwargs))
    else:
        out = jitted._call_slow(args, kwargs)
    name = getattr(jitted.fun, "__name__", "fn")
    if config.read("jax_log_compiles") and len(jitted._cache) > before:
        _logger.warning("Finished tracing + transforming %s for pjit", name)
        _logger.warning("Compiling %s with global shapes and types %s.", name,
                        [core.get_aval(a).str_short(True) for a in _leaves(args, kwargs)])
    if config.read("jax_debug_nans") or config.read("jax_debug_infs"):
        try:
            _check_values(f"jit({name})", _leaves(out, {}))
        except FloatingPointError:
            # de-optimized: run op by op, so the primitive that made it is named
            jitted.fun(*args, **kwargs)
            raise
    return out


def _leaves(args, kwargs):
    return [x for x in tree_leaves((args, kwargs)) if isinstance(x, (runtime.Array,
                                                                    core.Tracer))]


_RESTAGE = ("jax_numpy_rank_promotion", "jax_numpy_dtype_promotion",
            "jax_default_matmul_precision", "jax_use_shardy_partitioner",
            "jax_threefry_partitionable")
_HOOKED = ("jax_disable_jit", "jax_debug_nans", "jax_debug_infs", "jax_log_compiles",
           "jax_default_device", "jax_debug_key_reuse")
# f(jitted, args, kwargs, call) running `call()` while jax_debug_key_reuse is on: the
# key-reuse checker's marks on eager keys (`random/key_reuse.check_call`)
key_reuse_call = [None]


def _set_default_device(value):
    """Make `value` (a Device, a platform name, or None: the first device) the
    runtime's default device; what was compiled or cached for the old one is dropped."""
    dev = _device(value)
    if dev is not value:   # a platform name: store the Device
        config._values["jax_default_device"] = dev
    runtime.set_default_device(dev, move=value is not None)
    clear_caches()


def _on_update(name, value):
    if name in _RESTAGE:
        clear_caches()
    elif name == "jax_platform_name":
        if value:
            config.update("jax_platforms", value)
    if name == "jax_default_device":
        _set_default_device(value)
    if name in _HOOKED:
        active = any(config.read(n) not in (None, False) for n in _HOOKED)
        jit_call_hook[0] = _jit_call if active else None
        # eager primitives' outputs are checked through the runtime's execute event
        if config.read("jax_debug_nans") or config.read("jax_debug_infs"):
            runtime.subscribe(runtime.execute_listeners, _check_values)
        else:
            runtime.unsubscribe(runtime.execute_listeners, _check_values)


def _before_backend(name, value):
    """JAX's rule for flags read when the backend starts (`jax_num_cpu_devices`):
    changing one after the first operation is a RuntimeError."""
    if runtime._client is not None and config.read(name) != value:
        raise RuntimeError(f"{name} config should be updated before backends are initialized "
                           "i.e. before any JAX operation is executed. You should initialize "
                           "this config immediately after `import jax`.")


config.add_validator("jax_num_cpu_devices", _before_backend)
config.add_listener(_on_update)
for _name in _HOOKED:  # flags set from the environment before import
    if config.read(_name):
        _on_update(_name, config.read(_name))
