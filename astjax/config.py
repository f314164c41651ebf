"""Process-wide settings with JAX's names: `astjax.config.update("jax_enable_x64", True)`."""
from __future__ import annotations

import os

from .errors import ArgumentError, UnknownOptionError


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
    }

    def __init__(self):
        self._values = dict(self._defaults)
        self._listeners = []

    def update(self, name, value):
        if name not in self._values:
            raise UnknownOptionError(f"unknown config option {name!r}",
                                hint="known options: " + ", ".join(sorted(self._values)))
        self._values[name] = value
        for fn in self._listeners:
            fn(name, value)

    def read(self, name):
        return self._values[name]

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def x64_enabled(self):
        return self._values["jax_enable_x64"]


config = Config()
