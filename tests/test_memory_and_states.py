"""`astjax.memory` and the config states `array_garbage_collection_guard` and
`remove_size_one_mesh_axis_from_type` (issue 13), against JAX 0.10.2's behaviour."""
import os
import subprocess
import sys

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import memory
from astjax.sharding import AxisType, PartitionSpec as P


def test_space_enum():
    assert [s.name for s in memory.Space] == ["Device", "Host", "Any"]
    assert repr(memory.Space.Host) == "MemorySpace.Host" and memory.Space(1) is memory.Space.Device
    assert memory.Space is memory.MemorySpace and len({memory.Space.Any, memory.Space.Any}) == 1


def test_device_put_to_device_space():
    y = jax.device_put(jnp.ones(3), memory.Space.Device)
    assert y.committed and y.sharding.memory_kind == "device"
    s = jax.device_put(1.0, memory.Space.Device)
    assert str(jax.typeof(s)) == "~float32[]"   # weak type kept, as JAX
    t = jax.device_put({"a": np.arange(2)}, memory.Space.Device)
    np.testing.assert_array_equal(t["a"], [0, 1])
    h = jax.device_put(jnp.ones(3), memory.Space.Host)   # (tests/test_host_memory.py)
    assert h.sharding.memory_kind == "pinned_host" and str(jax.typeof(h)) == "float32<host>[3]"
    with pytest.raises(ValueError, match="MemorySpace.Any"):
        jax.device_put(jnp.ones(3), memory.Space.Any)


_CYCLE = """
import gc, astjax as jax, astjax.numpy as jnp
if {level!r} != "env":
    jax.config.update("jax_array_garbage_collection_guard", {level!r})
class C: pass
c = C(); c.self = c; c.a = jnp.ones(3) + 1
del c; gc.collect()
print("survived")
"""


@pytest.mark.parametrize("level", ["log", "allow", "fatal", "env"])
def test_garbage_collection_guard(level):
    # "env": JAX_ARRAY_GARBAGE_COLLECTION_GUARD=log in the environment, as JAX reads it
    env = dict(os.environ, JAX_ARRAY_GARBAGE_COLLECTION_GUARD="log")
    r = subprocess.run([sys.executable, "-c", _CYCLE.format(level=level)],
                       capture_output=True, text=True, env=env if level == "env" else None)
    msg = "deleted by the Python garbage collector instead of reference counting"
    if level == "env":
        level = "log"
    if level == "fatal":
        assert r.returncode != 0 and "survived" not in r.stdout and msg in r.stderr
    else:
        assert r.returncode == 0 and "survived" in r.stdout
        assert (msg in r.stderr) == (level == "log")


def test_garbage_collection_guard_state():
    assert jax.config.jax_array_garbage_collection_guard is None
    with jax.array_garbage_collection_guard("log"):
        assert jax.array_garbage_collection_guard.value == "log"
    assert jax.config.jax_array_garbage_collection_guard is None
    with pytest.raises(ValueError, match="jax_array_garbage_collection_guard"):
        jax.config.update("jax_array_garbage_collection_guard", "loud")


@pytest.mark.skipif(jax.device_count() < 2, reason="needs two devices")
def test_remove_size_one_mesh_axis_from_type():
    mesh = jax.make_mesh((2, 1), ("x", "y"), axis_types=(AxisType.Explicit,) * 2,
                         devices=jax.devices()[:2])
    f = jax.jit(lambda a: a * 2)
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((4, 4)), P("x", "y"))
        assert str(jax.typeof(x)) == "float32[4@x,4@y]"
        with jax.remove_size_one_mesh_axis_from_type(True):
            assert str(jax.typeof(x)) == "float32[4@x,4]"          # JAX's values
            assert f(x).sharding.spec == P("x", None)
            assert str(jax.typeof(f(x))) == "float32[4@x,4]"
        assert f(x).sharding.spec == P("x", "y")
