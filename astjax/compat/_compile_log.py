"""`jax.log_compiles()`: while active, every XLA compilation astjax performs is
logged as JAX logs it -- a WARNING record "Finished XLA compilation of jit(<name>) in
<seconds> sec" on the `jax._src.dispatch` logger (a child of `logging.getLogger("jax")`,
where tools such as optax's tests collect them).

How: while at least one `with log_compiles()` block is active, a listener is
subscribed to the runtime's compile event (`codegen.runtime.compile_listeners`,
told of every compilation with its module text and duration); nested and concurrent
uses share that one listener."""
from __future__ import annotations

import contextlib
import logging
import re
import threading

from astjax.codegen import runtime as _runtime

__all__ = ["log_compiles"]

_logger = logging.getLogger("jax._src.dispatch")
_lock = threading.Lock()
_depth = [0]
_MODULE_NAME = re.compile(r"module @\"?([\w.$-]+)")


def _log_compile(text, seconds):
    m = _MODULE_NAME.search(text[:2000])
    name = m.group(1) if m else "computation"
    if name.startswith("jit_"):
        name = f"jit({name[4:]})"
    _logger.warning("Finished XLA compilation of %s in %.9f sec", name, seconds)


@contextlib.contextmanager
def log_compiles(enable: bool = True):
    """Log each XLA compilation (see the module docstring) inside the `with` block."""
    if not enable:
        yield
        return
    with _lock:
        if _depth[0] == 0:
            _runtime.subscribe(_runtime.compile_listeners, _log_compile)
        _depth[0] += 1
    try:
        yield
    finally:
        with _lock:
            _depth[0] -= 1
            if _depth[0] == 0:
                _runtime.unsubscribe(_runtime.compile_listeners, _log_compile)
