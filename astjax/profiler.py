"""`jax.profiler`: traces of a program's host and device activity, through jaxlib's
profiler (the same collectors, files and viewers as JAX's).

- `start_trace(log_dir)` / `stop_trace()` / `with trace(log_dir):` collect one trace
  and write it as TensorBoard's profile plugin reads it:
  `log_dir/plugins/profile/<run>/<host>.xplane.pb` (plus
  `perfetto_trace.json.gz` with `create_perfetto_trace=True`). Only one trace at a
  time (JAX's RuntimeError).
- `TraceAnnotation(name, **metadata)`, `StepTraceAnnotation(name, step_num=...)`,
  `annotate_function(f)`: named spans on the host timeline (jaxlib's `TraceMe`).
- `start_server(port)` / `stop_server()`: the profiler server TensorBoard or
  `python -m jax.collect_profile` connect to; `register_subprocess(pid, port)`.
- `device_memory_profile()` / `save_device_memory_profile(f)`: the live buffers as a
  gzipped pprof protocol buffer (`pprof` reads it).
- `ProfileOptions`, `ProfileData` / `ProfilePlane` / `ProfileEvent` (reading an
  `.xplane.pb`: `ProfileData.from_file(path).planes`) are jaxlib's classes.
"""
from __future__ import annotations

import functools
import gzip
import json
import os
import pathlib
import threading
from contextlib import contextmanager

from jaxlib import _profile_data, _profiler
from jaxlib import version as _jaxlib_version

from .codegen import runtime
from .errors import AstjaxError
from .extend.backend import get_backend

__all__ = ["start_trace", "stop_trace", "trace", "TraceAnnotation", "StepTraceAnnotation",
           "annotate_function", "device_memory_profile", "save_device_memory_profile",
           "start_server", "stop_server", "register_subprocess", "ProfileOptions",
           "ProfileData", "ProfileEvent", "ProfilePlane"]

ProfileData = _profile_data.ProfileData
ProfileEvent = _profile_data.ProfileEvent
ProfilePlane = _profile_data.ProfilePlane


class ProfileOptions(_profiler.ProfileOptions):
    """What the profiler collects (`host_tracer_level`, `python_tracer_level`,
    `duration_ms`, `advanced_configuration`, ...; jaxlib's options)."""


class ProfilerStateError(AstjaxError, RuntimeError):
    """A trace started while another runs, or stopped when none runs (JAX's
    RuntimeError); a second profiler server (JAX's ValueError is `ServerError`)."""


class ServerError(AstjaxError, ValueError):
    """A profiler server started twice, or stopped when none runs (JAX's ValueError)."""


class _State:
    """The one running trace (`session`) and where it goes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.session = None
        self.log_dir = None
        self.perfetto = False


_state = _State()
_server = [None]


def start_server(port: int, requires_backend: bool = True):
    """Start the profiler server on `port` (TensorBoard's "capture profile" and
    `collect_profile` connect to it); returns jaxlib's server object."""
    if _server[0] is not None:
        raise ServerError("Only one profiler server can be active at a time.")
    if requires_backend:
        runtime.client()   # the backend's tracers register when the client is made
    _server[0] = _profiler.start_server(port)
    return _server[0]


def stop_server():
    """Stop the server `start_server` started."""
    if _server[0] is None:
        raise ServerError("No active profiler server.")
    _server[0] = None   # (dropping jaxlib's object shuts the server down)


def register_subprocess(pid: int, port: int):
    """Profile process `pid` (whose profiler server listens on `port`) with this one;
    returns the function that unregisters it."""
    return _profiler.register_subprocess(pid, port)


def start_trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
    """Start collecting a trace, written to `log_dir` by `stop_trace`.
    `create_perfetto_link` (which in JAX blocks serving the trace to
    ui.perfetto.dev) is accepted and treated as `create_perfetto_trace`: the
    `perfetto_trace.json.gz` file is written beside the trace."""
    with _state.lock:
        if _state.session is not None:
            raise ProfilerStateError("Profile has already been started. Only one profile "
                                     "may be run at a time.")
        _profiler.clear_metadata()
        client = runtime.client()   # the device tracers exist once the backend does
        _profiler.set_metadata("jaxlib_version", _jaxlib_version.__version__)
        _profiler.set_metadata(f"{client.platform}_version", client.platform_version)
        _state.session = _profiler.ProfilerSession(profiler_options or ProfileOptions())
        _state.log_dir = str(log_dir)
        _state.perfetto = bool(create_perfetto_trace or create_perfetto_link)


def _write_perfetto_trace(log_dir) -> pathlib.Path:
    """`perfetto_trace.json.gz` beside the newest run's `trace.json.gz`, without its
    `metadata` field (which Perfetto's UI rejects)."""
    runs = (pathlib.Path(log_dir).absolute() / "plugins" / "profile").iterdir()
    latest = max(runs, key=os.path.getmtime)
    found = list(latest.glob("*.trace.json.gz"))
    if len(found) != 1:
        raise ProfilerStateError(f"Invalid trace folder: {latest}")
    with gzip.open(found[0], "rb") as fp:
        data = json.load(fp)
    data.pop("metadata", None)
    out = latest / "perfetto_trace.json.gz"
    with gzip.open(out, "w") as fp:
        fp.write(json.dumps(data).encode("utf-8"))
    return out


def stop_trace() -> None:
    """Stop the running trace and write it to the `log_dir` given to `start_trace`."""
    with _state.lock:
        if _state.session is None:
            raise ProfilerStateError("No profile started")
        try:
            _state.session.stop_and_export(_state.log_dir)
            if _state.perfetto:
                _write_perfetto_trace(_state.log_dir)
        finally:
            _state.session, _state.log_dir, _state.perfetto = None, None, False
            _profiler.clear_metadata()


@contextmanager
def trace(log_dir: os.PathLike | str, create_perfetto_link: bool = False,
          create_perfetto_trace: bool = False,
          profiler_options: ProfileOptions | None = None):
    """`with trace(log_dir):` -- `start_trace` on entry, `stop_trace` on exit."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation(_profiler.TraceMe):
    """`with TraceAnnotation("name", key=value):` -- a span named `name` (with the
    keyword arguments as its metadata) on the host timeline of a running trace."""


class StepTraceAnnotation(TraceAnnotation):
    """A training-step span (`StepTraceAnnotation("train", step_num=k)`): the
    profiler's step analysis groups events by it."""

    def __init__(self, name: str, **kwargs):
        super().__init__(name, _r=1, **kwargs)


def annotate_function(func, name: str | None = None, **decorator_kwargs):
    """`func` wrapped so that each call is a `TraceAnnotation` named `name` (default:
    its qualified name)."""
    name = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(name, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


def device_memory_profile(backend: str | None = None) -> bytes:
    """The live device buffers and executables with their allocation sites: a
    gzipped pprof protocol buffer (`pprof` displays it)."""
    return gzip.compress(get_backend(backend).heap_profile())


def save_device_memory_profile(filename, backend: str | None = None) -> None:
    """Write `device_memory_profile(backend)` to `filename`."""
    with open(filename, "wb") as f:
        f.write(device_memory_profile(backend))
