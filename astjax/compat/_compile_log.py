"""`jax.log_compiles()`: while active, every XLA compilation astjax performs is
logged as JAX logs it -- a WARNING record "Finished XLA compilation of jit(<name>) in
<seconds> sec" on the `jax._src.dispatch` logger (a child of `logging.getLogger("jax")`,
where tools such as optax's tests collect them).

How: astjax's runtime has no compile event to subscribe to, so the context manager
wraps `codegen.runtime.compile_mlir` (the one function every compilation goes
through) for its duration and restores it after; nested and concurrent uses share
one wrapper. A compile event in codegen/runtime.py would replace the wrapping."""
from __future__ import annotations

import contextlib
import logging
import re
import threading
import time

from astjax.codegen import runtime as _runtime

__all__ = ["log_compiles"]

_logger = logging.getLogger("jax._src.dispatch")
_lock = threading.Lock()
_state = {"depth": 0, "inner": None}
_MODULE_NAME = re.compile(r"module @([\w.$-]+)")


def _logged_compile(text, devs, options):
    t0 = time.perf_counter()
    out = _state["inner"](text, devs, options)
    m = _MODULE_NAME.search(text[:2000])
    name = m.group(1) if m else "computation"
    if name.startswith("jit_"):
        name = f"jit({name[4:]})"
    _logger.warning("Finished XLA compilation of %s in %.9f sec", name,
                    time.perf_counter() - t0)
    return out


@contextlib.contextmanager
def log_compiles(enable: bool = True):
    """Log each XLA compilation (see the module docstring) inside the `with` block."""
    if not enable:
        yield
        return
    with _lock:
        if _state["depth"] == 0:
            _state["inner"] = _runtime.compile_mlir
            _runtime.compile_mlir = _logged_compile
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0:
                _runtime.compile_mlir = _state["inner"]
                _state["inner"] = None
