"""`astjax.profiler` (issue 13): a trace directory as JAX writes it, holding
astjax's annotations; the state errors; the memory profile."""
import gzip
import json
import socket

import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import profiler


@profiler.annotate_function
def _step(x):
    return jax.jit(lambda a: jnp.sin(a) @ a)(x).block_until_ready()


def test_trace_directory_holds_annotations(tmp_path):
    with profiler.trace(tmp_path, create_perfetto_trace=True):
        with profiler.TraceAnnotation("astjax_outer", k=1):
            for i in range(2):
                with profiler.StepTraceAnnotation("train", step_num=i):
                    _step(jnp.ones((8, 8)))
    [xplane] = tmp_path.glob("plugins/profile/*/*.xplane.pb")
    data = profiler.ProfileData.from_file(str(xplane))
    assert all(isinstance(p, profiler.ProfilePlane) for p in data.planes)
    events = [e for p in data.planes for line in p.lines for e in line.events]
    names = {e.name for e in events}
    assert {"astjax_outer", "train", "_step"} <= names
    assert any("Execute" in n for n in names)   # XLA running the jitted program
    outer = next(e for e in events if e.name == "astjax_outer")
    assert outer.duration_ns > 0
    [perfetto] = tmp_path.glob("plugins/profile/*/perfetto_trace.json.gz")
    trace = json.loads(gzip.decompress(perfetto.read_bytes()))
    assert "metadata" not in trace and trace["traceEvents"]


def test_one_trace_at_a_time(tmp_path):
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(tmp_path)
    finally:
        profiler.stop_trace()
    assert list(tmp_path.glob("plugins/profile/*/*.xplane.pb"))


def test_options_and_memory_profile(tmp_path):
    opts = profiler.ProfileOptions()
    opts.python_tracer_level = 0
    with profiler.trace(tmp_path, profiler_options=opts):
        jnp.ones(3).block_until_ready()
    x = jnp.ones(1000)
    prof = profiler.device_memory_profile()
    assert prof[:2] == b"\x1f\x8b" and len(gzip.decompress(prof)) > 0   # gzipped pprof
    profiler.save_device_memory_profile(tmp_path / "mem.prof")
    assert (tmp_path / "mem.prof").read_bytes()[:2] == b"\x1f\x8b"
    del x


def test_server_state():
    with pytest.raises(ValueError, match="No active profiler server"):
        profiler.stop_server()
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    profiler.start_server(port)
    try:
        with pytest.raises(ValueError, match="Only one profiler server"):
            profiler.start_server(port)
    finally:
        profiler.stop_server()
