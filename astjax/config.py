"""Process-wide settings with JAX's names: `astjax.config.update("jax_enable_x64", True)`,
`astjax.config.jax_debug_nans`, `astjax.config.values` (read-only view).

Each option has a default (from the environment where JAX reads one) and, where
JAX restricts it, a set of allowed values checked by `update` (a ValueError, as
JAX's). Listeners (`add_listener`) run after every change: `astjax.config_api`
uses one to honour the flags that change how programs are staged or run (it
drops the compiled caches and switches the checked eager path on and off)."""
from __future__ import annotations

import itertools
import os
import sys

from .errors import ArgumentError, ArgumentValueError, UnknownOptionError


def _env_bool(name):
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


class Config:
    _defaults = {
        "jax_enable_x64": os.environ.get("JAX_ENABLE_X64", "").lower() in ("1", "true"),
        "astjax_compile_cache_dir": os.environ.get("ASTJAX_COMPILE_CACHE_DIR") or None,
        "jax_platforms": os.environ.get("ASTJAX_PLATFORM") or None,
        # Python loops with a static trip count at most this are unrolled when
        # compiled (measured: benchmarks/loops.py); `astjax.unroll(it, k)` overrides.
        "astjax_loop_unroll_threshold": int(os.environ.get("ASTJAX_LOOP_UNROLL", "8")),
        # "off" keeps astjax's own frames in user-facing tracebacks (traceback_util)
        "jax_traceback_filtering": os.environ.get("JAX_TRACEBACK_FILTERING", "auto"),
        # JAX's flags, honoured by astjax.config_api
        "jax_platform_name": os.environ.get("JAX_PLATFORM_NAME", ""),
        "jax_disable_jit": _env_bool("JAX_DISABLE_JIT"),
        "jax_debug_nans": _env_bool("JAX_DEBUG_NANS"),
        "jax_debug_infs": _env_bool("JAX_DEBUG_INFS"),
        "jax_numpy_rank_promotion": os.environ.get("JAX_NUMPY_RANK_PROMOTION", "allow"),
        "jax_numpy_dtype_promotion": os.environ.get("JAX_NUMPY_DTYPE_PROMOTION", "standard"),
        "jax_default_matmul_precision": os.environ.get("JAX_DEFAULT_MATMUL_PRECISION") or None,
        "jax_log_compiles": _env_bool("JAX_LOG_COMPILES"),
        "jax_default_device": None,
        # partitioned programs lowered with Shardy's sdy dialect (JAX 0.10.2's default)
        # or, when False, GSPMD's mhlo.sharding (codegen/spmd.py)
        "jax_use_shardy_partitioner": os.environ.get(
            "JAX_USE_SHARDY_PARTITIONER", "true").lower() in ("1", "true", "yes", "on"),
        # MAGMA or LAPACK on the host for the hybrid GPU kernels (eig, pivoted qr):
        # "on", "off" or "auto" (primitives/cusolver.py)
        "jax_gpu_use_magma": os.environ.get("JAX_GPU_USE_MAGMA", "auto"),
        # CPU devices of the client made on first use (codegen/platforms.py); -1: the
        # ASTJAX_NUM_CPU_DEVICES environment variable, else one
        "jax_num_cpu_devices": int(os.environ.get("JAX_NUM_CPU_DEVICES", "-1")),
        # threefry's counter layout for split/random_bits (random/threefry.py): JAX
        # 0.10.2's default True; False gives the bits of JAX's "original" layout
        "jax_threefry_partitionable": os.environ.get(
            "JAX_THREEFRY_PARTITIONABLE", "true").lower() in ("1", "true", "yes", "on"),
        # guards and checks (astjax/config_guards.py)
        "jax_transfer_guard": os.environ.get("JAX_TRANSFER_GUARD") or None,
        "jax_transfer_guard_host_to_device": None,
        "jax_transfer_guard_device_to_device": None,
        "jax_transfer_guard_device_to_host": None,
        "jax_no_tracing": False,
        "jax_no_execution": False,
        "jax_enable_checks": _env_bool("JAX_ENABLE_CHECKS"),
        "jax_check_tracer_leaks": _env_bool("JAX_CHECK_TRACER_LEAKS"),
        "jax_explain_cache_misses": _env_bool("JAX_EXPLAIN_CACHE_MISSES"),
        "jax2tf_associative_scan_reductions": False,
        "jax_thread_guard": False,
        "jax_allow_f16_reductions": True,
        "jax_default_prng_impl": "threefry2x32",
        # False: shard_map bodies get no implicit pvary (primitives/vma.py)
        "jax_auto_pcast": True,
        # nn.softmax differentiated by its custom_jvp rule (scipy/special) or by autodiff
        "jax_softmax_custom_jvp": _env_bool("JAX_SOFTMAX_CUSTOM_JVP"),   # False: reduce_sum of f16/bf16 refused
        # raw uint32 keys given to jax.random (random/keys.py)
        "jax_legacy_prng_key": os.environ.get("JAX_LEGACY_PRNG_KEY", "allow"),
        "jax_enable_custom_prng": _env_bool("JAX_ENABLE_CUSTOM_PRNG"),
        # typed keys consumed twice raise KeyReuseError (random/key_reuse.py)
        "jax_debug_key_reuse": _env_bool("JAX_DEBUG_KEY_REUSE"),
        # what jaxlib does when the cyclic garbage collector frees an array's buffer
        # (config_guards.py); None: jaxlib's default, 'allow'
        "jax_array_garbage_collection_guard": (
            os.environ.get("JAX_ARRAY_GARBAGE_COLLECTION_GUARD") or None),
        # mesh axes of size 1 left out of sharding-in-types specs (codegen/explicit.py)
        "jax_remove_size_one_mesh_axis_from_type": _env_bool(
            "JAX_REMOVE_SIZE_ONE_MESH_AXIS_FROM_TYPE"),
    }
    _choices = {
        "jax_legacy_prng_key": ("allow", "warn", "error"),
        "jax_array_garbage_collection_guard": (None, "allow", "log", "fatal"),
        "jax_numpy_rank_promotion": ("allow", "warn", "raise"),
        "jax_traceback_filtering": ("off", "tracebackhide", "remove_frames",
                                    "quiet_remove_frames", "auto"),
        "jax_numpy_dtype_promotion": ("standard", "strict"),
        # JAX's strings and every lax.DotAlgorithmPreset name but DEFAULT
        "jax_default_matmul_precision": (
            None, "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
            "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
            "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
            "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
            "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"),
    }

    def __init__(self):
        self._values = dict(self._defaults)
        self._listeners = []
        self._validators = {}

    def update(self, name, value):
        if name not in self._values:
            raise UnknownOptionError(f"unknown config option {name!r}",
                                hint="known options: " + ", ".join(sorted(self._values)))
        allowed = self._choices.get(name)
        if allowed is not None and value not in allowed:
            raise ArgumentValueError(f"Invalid value {value!r} for JAX flag {name}; expected "
                                     f"one of {', '.join(map(repr, allowed))}")
        check = self._validators.get(name)
        if check is not None:
            check(name, value)
        self._values[name] = value
        for fn in self._listeners:
            fn(name, value)

    def read(self, name):
        return self._values[name]

    def add_validator(self, name, fn):
        """Call fn(name, value) before `name` changes; it raises to refuse the value."""
        self._validators[name] = fn

    def add_listener(self, fn):
        """Call fn(name, value) after every `update`."""
        self._listeners.append(fn)

    @property
    def values(self):
        """The current settings (a copy)."""
        return dict(self._values)

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def x64_enabled(self):
        return self._values["jax_enable_x64"]

    # -- absl flags (JAX's `config_with_absl` / `parse_flags_with_absl`) --------------

    def config_with_absl(self):
        """Define an absl flag for every option (its current value the default) and
        apply the flags given on the command line once absl's `app.run` has parsed them."""
        from absl import app, flags

        for name, value in self._values.items():
            if name in flags.FLAGS:
                continue
            if isinstance(value, bool):
                flags.DEFINE_bool(name, value, name)
            elif isinstance(value, int):
                flags.DEFINE_integer(name, value, name)
            else:
                flags.DEFINE_string(name, value, name)
        app.call_after_init(lambda: self.complete_absl_config(flags))

    def complete_absl_config(self, absl_flags):
        """Copy every flag given on the command line into this configuration."""
        for name in list(self._values):
            if name in absl_flags.FLAGS and absl_flags.FLAGS[name].present:
                self.update(name, absl_flags.FLAGS[name].value)

    def parse_flags_with_absl(self):
        """Apply the `--jax...` arguments of `sys.argv` (those before a `--`), once per
        process, as absl parses them (unknown `--jax` names are ignored)."""
        global _configured_with_absl
        if _configured_with_absl:
            return
        from absl import flags

        argv = itertools.takewhile(lambda a: a != "--", sys.argv)
        self.config_with_absl()
        flags.FLAGS(["", *(a for a in argv if a.startswith("--jax"))], known_only=True)
        self.complete_absl_config(flags)
        _configured_with_absl = True


_configured_with_absl = False


config = Config()

# The call hook of `astjax.jit` (api.Jitted.__call__ reads jit_call_hook[0]): None on the
# fast path; astjax.config_api sets it while disable_jit, debug_nans/infs or
# log_compiles is on.
jit_call_hook = [None]
