"""`astjax.monitoring` (JAX's `jax.monitoring`): named events for metrics collectors.
Code reports an event (`record_event`), a duration (`record_event_duration_secs`), a
time span or a scalar; every listener registered for that kind is called with it.

astjax itself reports each XLA compilation as JAX does: a duration and a time span
of the event `/jax/core/compile/backend_compile_duration` with `fun_name=` the
compiled module's name (`jit_f` for `jit(f)`)."""
from __future__ import annotations

import re
import time

from .codegen import runtime

__all__ = ["record_event", "record_event_duration_secs", "record_event_time_span",
           "record_scalar", "register_event_listener",
           "register_event_duration_secs_listener", "register_event_time_span_listener",
           "register_scalar_listener", "unregister_event_listener",
           "unregister_event_duration_listener", "unregister_event_time_span_listener",
           "unregister_scalar_listener", "clear_event_listeners",
           "BACKEND_COMPILE_EVENT"]

BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

_events: list = []      # f(event, **kwargs)
_durations: list = []   # f(event, duration_secs, **kwargs)
_spans: list = []       # f(event, start_time, end_time, **kwargs)
_scalars: list = []     # f(event, value, **kwargs)


def record_event(event: str, **kwargs) -> None:
    """Report that `event` happened (kwargs: str or int metadata)."""
    for fn in tuple(_events):
        fn(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs) -> None:
    """Report that `event` took `duration` seconds."""
    for fn in tuple(_durations):
        fn(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float,
                           **kwargs) -> None:
    """Report that `event` ran from `start_time` to `end_time` (`time.time()` values)."""
    for fn in tuple(_spans):
        fn(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value, **kwargs) -> None:
    """Report the scalar `value` of `event`."""
    for fn in tuple(_scalars):
        fn(event, value, **kwargs)


def _compiled(text, seconds):
    """The runtime's compile event -> BACKEND_COMPILE_EVENT's duration and span."""
    m = re.search(r"module @\"?([\w.$-]+)", text)
    name = m.group(1) if m else "unknown"
    end = time.time()
    record_event_duration_secs(BACKEND_COMPILE_EVENT, seconds, fun_name=name)
    record_event_time_span(BACKEND_COMPILE_EVENT, end - seconds, end, fun_name=name)


def _listen():
    """Hear of compilations only while someone listens for durations or spans."""
    if _durations or _spans:
        runtime.subscribe(runtime.compile_listeners, _compiled)
    else:
        runtime.unsubscribe(runtime.compile_listeners, _compiled)


def _register(listeners, fn):
    listeners.append(fn)
    _listen()


def _unregister(listeners, fn):
    if fn not in listeners:
        raise ValueError(f"{fn!r} is not a registered listener")
    listeners.remove(fn)
    _listen()


def register_event_listener(callback) -> None:
    """Call `callback(event, **kwargs)` for every `record_event`."""
    _register(_events, callback)


def register_event_duration_secs_listener(callback) -> None:
    """Call `callback(event, duration_secs, **kwargs)` for every duration."""
    _register(_durations, callback)


def register_event_time_span_listener(callback) -> None:
    """Call `callback(event, start_time, end_time, **kwargs)` for every time span."""
    _register(_spans, callback)


def register_scalar_listener(callback) -> None:
    """Call `callback(event, value, **kwargs)` for every `record_scalar`."""
    _register(_scalars, callback)


def unregister_event_listener(callback) -> None:
    """Stop calling an event listener (a ValueError if it is not registered)."""
    _unregister(_events, callback)


def unregister_event_duration_listener(callback) -> None:
    """Stop calling a duration listener."""
    _unregister(_durations, callback)


def unregister_event_time_span_listener(callback) -> None:
    """Stop calling a time-span listener."""
    _unregister(_spans, callback)


def unregister_scalar_listener(callback) -> None:
    """Stop calling a scalar listener."""
    _unregister(_scalars, callback)


def clear_event_listeners() -> None:
    """Unregister every listener of every kind."""
    for listeners in (_events, _durations, _spans, _scalars):
        listeners.clear()
    _listen()
