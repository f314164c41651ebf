"""JAX's guard and checking flags, and what makes them take effect: transfer guards,
`no_tracing` / `no_execution`, `enable_checks`, `check_tracer_leaks`,
`explain_cache_misses`, `make_user_context`.

How each flag is honoured:

- `jax_transfer_guard_host_to_device` (and `jax_transfer_guard`, which sets all
  three directions): every host-to-device copy goes through `runtime.put_host`, whose
  hook (`runtime.h2d_hook`) logs it (`'log'`, `'log_explicit'`) or raises JAX's
  `JaxRuntimeError` (`'disallow'`: implicit copies only, `astjax.device_put` is
  explicit; `'disallow_explicit'`: both). On the CPU, arrays live in host memory and
  device-to-host copies are never guarded, as in JAX; the device-to-device and
  device-to-host flags are accepted and read the same way;
- `jax_no_tracing`: staging a function (a `jit` cache miss, or an eager
  transformation) raises RuntimeError; `jax_no_execution`: running a jitted function
  or an eager operation raises RuntimeError;
- `jax_enable_checks`: every staged jaxpr is checked with `ir.check_jaxpr` (a
  `JaxprTypeError` if it is not well formed);
- `jax_check_tracer_leaks` (`checking_leaks()`): after a function is staged, a staged
  value still alive outside it raises `UnexpectedTracerError` naming what holds it;
- `jax_explain_cache_misses`: each `jit` cache miss is logged (WARNING, on the `jax`
  logger) with what differed from the signatures seen before;
- `jax_thread_guard` (`with thread_guard(True):`): in a job of several processes, a
  jitted function run from a thread other than the one that set the guard raises
  RuntimeError (the processes would otherwise launch programs in different orders);
  alone, no operation spans processes and nothing is refused, as in JAX;
- `jax_legacy_prng_key` ('allow', 'warn', 'error') and `jax_enable_custom_prng`: read
  by `random/keys.py` when a raw uint32 key reaches a sampler, `split` or `fold_in`
  (JAX's ValueError, UserWarning or FutureWarning); with `enable_custom_prng`, `split`
  and `fold_in` of a raw key return typed keys;
- `jax_softmax_custom_jvp`: read by `nn.softmax` while staging (its custom_jvp rule or
  plain autodiff of its formula); changing it drops the compiled caches;
- `jax_auto_pcast`: False makes `primitives/vma.py` refuse, in a checked `shard_map`
  body, an operation whose operands vary over different mesh axes (JAX's ValueError);
- `jax_allow_f16_reductions`: False makes `reduce_sum`'s shape rule refuse a sum of
  several float16/bfloat16 values (ValueError, as JAX);
- `jax_array_garbage_collection_guard` ('allow', 'log', 'fatal'; None: jaxlib's
  default, 'allow'): an array's device buffer freed by Python's cyclic garbage
  collector instead of by reference counting (the array was held in a reference
  cycle, so its memory outlived its last use) is logged as an error by jaxlib, or
  aborts the process ('fatal') -- jaxlib's own guard, which watches the buffers
  astjax's arrays hold;
- `jax_remove_size_one_mesh_axis_from_type`: mesh axes of size 1 are left out of the
  layouts that sharding in types computes (`jax.typeof` prints `float32[4@x,4]`
  for `P('x', 'y')` on a `(2, 1)` mesh, and a jitted result is laid out `P('x',
  None)`), as JAX; changing it drops the compiled caches. (A `shard_map` body's
  varying axes are not affected);
- `make_user_context(default)`: a context whose value is part of the staging key:
  changing it drops what was staged or compiled under the old value.
"""
from __future__ import annotations

import contextlib
import gc
import logging
import sys
import threading

from . import core, staging
from .api import device_put as _api_device_put, process_count as _process_count
from .codegen import runtime
from .config import config, jit_call_hook
from .config_api import _HOOKED, State, _jit_call, clear_caches
from .errors import AstjaxError, JaxRuntimeError, UnexpectedTracerError, caller_location
from .ir import check_jaxpr
from .tree_util import tree_leaves

__all__ = ["transfer_guard", "transfer_guard_host_to_device",
           "transfer_guard_device_to_device", "transfer_guard_device_to_host",
           "no_tracing", "no_execution", "enable_checks", "check_tracer_leaks",
           "checking_leaks", "explain_cache_misses", "jax2tf_associative_scan_reductions",
           "make_user_context", "TransferGuardError", "thread_guard", "legacy_prng_key",
           "enable_custom_prng", "allow_f16_reductions", "default_prng_impl",
           "softmax_custom_jvp", "auto_pcast", "array_garbage_collection_guard",
           "remove_size_one_mesh_axis_from_type"]

_logger = logging.getLogger("jax")
_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
_DIRECTIONS = ("host_to_device", "device_to_device", "device_to_host")


class TransferGuardError(AstjaxError, JaxRuntimeError):
    """A copy the transfer guard disallows (JAX's `JaxRuntimeError`, a RuntimeError)."""
    default_hint = ("copy explicitly with astjax.device_put (allowed under 'disallow'), or "
                    "relax the guard")


def _level(value):
    if value is not None and value not in _LEVELS:
        raise ValueError(f"Invalid value {value!r} for a transfer guard; expected one of "
                         f"{', '.join(map(repr, _LEVELS))}")
    return value


transfer_guard_host_to_device = State("jax_transfer_guard_host_to_device", _level)
transfer_guard_device_to_device = State("jax_transfer_guard_device_to_device", _level)
transfer_guard_device_to_host = State("jax_transfer_guard_device_to_host", _level)


@contextlib.contextmanager
def transfer_guard(new_val):
    """Inside, every transfer direction has guard level `new_val` ('allow', 'log',
    'disallow', 'log_explicit', 'disallow_explicit')."""
    with contextlib.ExitStack() as stack:
        for d in _DIRECTIONS:
            stack.enter_context(State(f"jax_transfer_guard_{d}", _level)(new_val))
        yield


def _guard_level(direction):
    own = config.read(f"jax_transfer_guard_{direction}")
    return own if own is not None else (config.read("jax_transfer_guard") or "allow")


def _explicit():
    """Whether the running copy was asked for with `astjax.device_put`."""
    f = sys._getframe(2)
    code = _api_device_put.__code__
    for _ in range(8):
        if f is None:
            return False
        if f.f_code is code:
            return True
        f = f.f_back
    return False


def _check_h2d(aval, device):
    level = _guard_level("host_to_device")
    if level == "allow":
        return
    explicit = _explicit()
    if explicit and level in ("log", "disallow"):
        return
    what = (f"host-to-device transfer: aval={aval.str_short(True)}, "
            f"dst_sharding=SingleDeviceSharding(device={device or runtime.default_device()})")
    if level.startswith("disallow"):
        raise TransferGuardError(f"INVALID_ARGUMENT: Disallowed {what}", loc=caller_location())
    _logger.warning(what)


def _update_h2d_hook():
    runtime.h2d_hook[0] = None if _guard_level("host_to_device") == "allow" else _check_h2d
    runtime.clear_eager_caches()   # cached scalar buffers: copied again under the guard

# ------------------------------------------------------------ staging and execution


no_tracing = State("jax_no_tracing", bool)
no_tracing.__doc__ = """`with astjax.no_tracing():` staging a function raises
RuntimeError (what was compiled before keeps running)."""
no_execution = State("jax_no_execution", bool)
no_execution.__doc__ = """`with astjax.no_execution():` running a jitted function or an
eager operation raises RuntimeError."""
enable_checks = State("jax_enable_checks", bool)
enable_checks.__doc__ = """`with astjax.enable_checks():` every staged jaxpr is checked
(`ir.check_jaxpr`); a malformed one raises JaxprTypeError."""
check_tracer_leaks = State("jax_check_tracer_leaks", bool)
check_tracer_leaks.__doc__ = """`with astjax.check_tracer_leaks(True):` a staged value
that outlives the function it was staged in raises UnexpectedTracerError."""
explain_cache_misses = State("jax_explain_cache_misses", bool)
explain_cache_misses.__doc__ = """`with astjax.explain_cache_misses():` each `jit` cache
miss is logged with what differs from the signatures seen before."""
jax2tf_associative_scan_reductions = State("jax2tf_associative_scan_reductions", bool)
jax2tf_associative_scan_reductions.__doc__ = """JAX's flag choosing how `jax2tf` lowers
cumulative reductions; astjax has no `jax2tf`, so (as in JAX without it) the flag
changes nothing it computes."""


legacy_prng_key = State("jax_legacy_prng_key")
legacy_prng_key.__doc__ = """`with astjax.legacy_prng_key('error'):` a raw uint32 key
given to `astjax.random` raises ValueError ('warn': a warning; 'allow': accepted)."""
enable_custom_prng = State("jax_enable_custom_prng", bool)
enable_custom_prng.__doc__ = """`with astjax.enable_custom_prng():` raw keys given to
`astjax.random` warn (FutureWarning) and `split`/`fold_in` return typed keys."""
def _prng_impl(name):
    if name not in ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32",
                    "philox4x32"):
        raise ValueError(f"Invalid value {name!r} for JAX flag jax_default_prng_impl")
    return name


softmax_custom_jvp = State("jax_softmax_custom_jvp", bool)
softmax_custom_jvp.__doc__ = """`with astjax.softmax_custom_jvp():` `nn.softmax` is
differentiated by its custom_jvp rule `y * (dx - sum(y * dx))` (JAX's newer rule)
instead of by differentiating its formula."""
auto_pcast = State("jax_auto_pcast", bool)
auto_pcast.__doc__ = """`with astjax.auto_pcast(False):` inside `shard_map` (check_vma),
an operation whose operands vary over different mesh axes raises ValueError instead
of treating the less varying ones as varying (`lax.pcast` them explicitly)."""
default_prng_impl = State("jax_default_prng_impl", _prng_impl)
default_prng_impl.__doc__ = """JAX's choice of the PRNG implementation of new keys (and
of what raw uint32 keys are read as): 'threefry2x32' (JAX's default), 'threefry4x32',
'rbg', 'unsafe_rbg', 'philox2x32' or 'philox4x32'
(`with astjax.default_prng_impl('rbg'):`)."""
allow_f16_reductions = State("jax_allow_f16_reductions", bool)
allow_f16_reductions.__doc__ = """`with astjax.allow_f16_reductions(False):` a
`reduce_sum` of several float16 or bfloat16 values raises ValueError."""
thread_guard = State("jax_thread_guard", bool)
array_garbage_collection_guard = State("jax_array_garbage_collection_guard")
array_garbage_collection_guard.__doc__ = """`with array_garbage_collection_guard('log'):`
arrays freed by the cyclic garbage collector are reported ('fatal': the process
aborts)."""
remove_size_one_mesh_axis_from_type = State("jax_remove_size_one_mesh_axis_from_type", bool)
remove_size_one_mesh_axis_from_type.__doc__ = """`with
remove_size_one_mesh_axis_from_type(True):` mesh axes of size 1 are left out of
sharding-in-types layouts."""


def _set_gc_guard(value):
    """Hand `jax_array_garbage_collection_guard` to jaxlib's guard state."""
    levels = runtime.xc._xla.guard_lib.GarbageCollectionGuardLevel
    level = {None: levels.ALLOW, "allow": levels.ALLOW, "log": levels.LOG,
             "fatal": levels.FATAL}[value]
    runtime.xc._xla.guard_lib.global_state().garbage_collect_array = level
thread_guard.__doc__ = """`with astjax.thread_guard(True):` in a multi-process job, a
jitted function run from another thread than this one raises RuntimeError."""
_guard_owner = [None]   # the thread that set jax_thread_guard


def checking_leaks():
    """`check_tracer_leaks(True)`: a context manager checking for leaked staged values."""
    return check_tracer_leaks(True)


def _tracers():
    return {id(t): t for t in gc.get_objects() if isinstance(t, core.Tracer)}


def _holders(t, mine):
    """What refers to `t` (besides `mine`, the check's own list), for the message."""
    return [type(r).__name__ for r in gc.get_referrers(t)
            if not isinstance(r, core.Tracer) and r is not mine]


def _staging_hook(fun, phase, state):
    """`staging.stage_flat` calls it before (phase None) and after (the ClosedJaxpr)
    staging `fun`; `state` carries what the first call saw to the second."""
    name = getattr(fun, "__name__", "fn")
    if phase is None:
        if config.read("jax_no_tracing"):
            raise RuntimeError(f"re-tracing function {name} for `jit`, but 'no_tracing' is "
                               "set")
        if config.read("jax_check_tracer_leaks"):
            gc.collect()
            state["before"] = set(_tracers())
        return
    if config.read("jax_enable_checks"):
        check_jaxpr(phase)
    if "before" in state:
        gc.collect()
        live = {id(b) for b in core._state.builders}
        leaked = [t for i, t in _tracers().items()
                  if i not in state["before"] and id(t.builder) not in live]
        if leaked:
            lines = [f"{t.aval.str_short(True)} is referred to by "
                     f"{', '.join(_holders(t, leaked))}" for t in leaked]
            raise UnexpectedTracerError(
                f"Leaked trace of {name}. Leaked tracer(s):\n" + "\n".join(lines),
                loc=caller_location())


def _run_check(where):
    if config.read("jax_no_execution"):
        raise RuntimeError(f"JAX tried to execute function {where}, but the no_execution "
                           "config option is set")


def _eager_check(where, outs):
    _run_check(where)

# ------------------------------------------------------------------- cache misses


_seen: dict = {}   # function -> the argument signatures it was staged for


def _signature(args, kwargs):
    return tuple(core.get_aval(x).str_short(True) if hasattr(x, "shape") else repr(x)
                 for x in tree_leaves((args, kwargs)))


def _guarded_jit_call(jitted, args, kwargs):
    """`jit(f)(*args)` while a flag of this module is on (then the flags of
    `config_api`, through its own call path)."""
    name = getattr(jitted.fun, "__name__", "fn")
    _run_check(f"jit({name})")
    if config.read("jax_thread_guard") and threading.get_ident() != _guard_owner[0] \
            and _process_count() > 1:
        raise RuntimeError(f"jit({name}) runs across processes and was called from a "
                           "thread other than the one that set jax_thread_guard")
    before = len(jitted._cache)
    out = _jit_call(jitted, args, kwargs)
    if config.read("jax_explain_cache_misses") and len(jitted._cache) > before:
        sig = _signature(args, kwargs)
        seen = _seen.setdefault(jitted.fun, [])
        why = ("never seen function" if not seen else
               "signature differs from those seen: " + "; ".join(
                   f"({', '.join(s)})" for s in seen[-3:]))
        _logger.warning("TRACING CACHE MISS of %s at %s for (%s) because: %s", name,
                        caller_location().where(), ", ".join(sig), why)
        seen.append(sig)
    return out


def make_user_context(default_value=None):
    """A context `ctx` whose value (`ctx.value`; `with ctx(v):` sets it) `jit` depends
    on: what was staged or compiled is dropped when the value changes, so the next
    call stages again under the new value."""
    return _UserContext(default_value)


class _UserContext:
    """A `make_user_context` context."""

    def __init__(self, value):
        self.value = value

    @contextlib.contextmanager
    def __call__(self, new_value):
        old = self.value
        self._set(new_value)
        try:
            yield
        finally:
            self._set(old)

    def _set(self, value):
        if value != self.value:
            clear_caches()
        self.value = value

# --------------------------------------------------------------------- the switches


_FLAGS = ("jax_no_tracing", "jax_no_execution", "jax_enable_checks",
          "jax_check_tracer_leaks", "jax_explain_cache_misses", "jax_thread_guard")


def _on_update(name, value):
    if name == "jax_array_garbage_collection_guard":
        _set_gc_guard(value)
    if name in ("jax_allow_f16_reductions", "jax_softmax_custom_jvp", "jax_auto_pcast",
                "jax_remove_size_one_mesh_axis_from_type"):
        clear_caches()   # (eager executables were checked under the old value)
    if name == "jax_thread_guard":
        _guard_owner[0] = threading.get_ident() if value else None
    if name == "jax_transfer_guard" or name.startswith("jax_transfer_guard_"):
        _update_h2d_hook()
    if name in _FLAGS:
        staged = ("jax_no_tracing", "jax_enable_checks", "jax_check_tracer_leaks")
        staging.staging_hook[0] = (_staging_hook if any(config.read(n) for n in staged)
                                   else None)
        if config.read("jax_no_execution"):
            runtime.subscribe(runtime.execute_listeners, _eager_check)
        else:
            runtime.unsubscribe(runtime.execute_listeners, _eager_check)
    # (config_api's listener ran first and chose between its call path and none)
    if any(config.read(n) for n in ("jax_no_execution", "jax_explain_cache_misses",
                                    "jax_thread_guard")):
        jit_call_hook[0] = _guarded_jit_call
    elif jit_call_hook[0] is _guarded_jit_call:
        active = any(config.read(n) not in (None, False) for n in _HOOKED)
        jit_call_hook[0] = _jit_call if active else None


config.add_listener(_on_update)
config.add_validator("jax_default_prng_impl", lambda name, value: _prng_impl(value))
for _name in _FLAGS + ("jax_transfer_guard", "jax_array_garbage_collection_guard"):
    if config.read(_name):
        _on_update(_name, config.read(_name))
