"""Host memory kinds against JAX 0.10.2's recorded outcomes (`tests/oracle/host_memory.json`,
from `record_host_memory.py`): `device_put` to pinned_host / unpinned_host / device and
back, eager operations on such arrays, `jit` of them (module text exactly, results'
values, shardings, types and committedness), `device_put` to a memory kind inside
`jit` (jaxpr and module text), and JAX's errors (builtin class and message)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import core
from astjax.codegen import host_memory
from astjax.errors import AstjaxError
from astjax.ir import in_memory_space
from astjax.memory import MemorySpace

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_host_memory import SCENARIOS, X, namespace, summarize  # noqa: E402

RECORDED = json.loads((Path(__file__).parent / "oracle" / "host_memory.json").read_text())
J = namespace(jax, jnp, jax.sharding)
_BUILTIN = {"ValueError": ValueError, "TypeError": TypeError}
# JAX fails an internal assertion ("unreachable") for `Space.Any`; astjax's located
# ValueError says what to use instead
OWN_ERRORS = {"space_any": ValueError}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_as_jax(name):
    theirs = RECORDED[name]
    if name in OWN_ERRORS:
        assert theirs["raises"] == "AssertionError"
        with pytest.raises(OWN_ERRORS[name]) as e:
            SCENARIOS[name](J)
        assert isinstance(e.value, AstjaxError)
        return
    if "raises" in theirs:
        raises_like_jax(theirs, lambda: SCENARIOS[name](J))
        return
    assert summarize(SCENARIOS[name](J), jax) == theirs


def raises_like_jax(theirs, thunk):
    """`thunk()` raises as JAX did (`theirs`: the recorded outcome): an AstjaxError of
    the same builtin class, with JAX's message in it."""
    with pytest.raises(_BUILTIN[theirs["raises"]]) as e:
        thunk()
    assert isinstance(e.value, AstjaxError)
    assert theirs["message"] in str(e.value)


def test_host_aval_type():
    """The memory space is part of the type: unequal, hashed apart, kept by `update`."""
    dev = core.ShapedArray((2,), np.float32)
    host = in_memory_space(dev, MemorySpace.Host)
    assert (host.memory_space, dev.memory_space) == (MemorySpace.Host, MemorySpace.Device)
    assert host != dev and dev != host and hash(host) != hash(dev)
    assert host.update(shape=(3,)).str_short() == "float32<host>[3]"   # (JAX's)
    assert host.update(shape=(3,)).str_short(short_dtypes=True) == "f32<host>[3]"
    assert in_memory_space(host, MemorySpace.Device) == dev


def test_eager_ops_reuse_one_program():
    """Eager operations on host arrays are cached per signature and memory kinds."""
    y = J.jax.device_put(X, jax.memory.Space.Host)
    before = len(host_memory._eager)
    for _ in range(3):
        z = y + 1
    assert len(host_memory._eager) <= before + 1
    assert z.sharding.memory_kind == "pinned_host"
    np.testing.assert_array_equal(np.asarray(z), X + 1)


def test_jit_cache_tells_kinds_apart():
    """One jitted function called on device, unpinned and pinned arrays of one shape:
    three programs, each result in its memory (the cache key has the kinds)."""
    f = jax.jit(lambda a: a - 1)
    d = jax.devices()[0]
    for kind, want in [("device", "device"), ("unpinned_host", "device"),
                       ("pinned_host", "pinned_host"), ("unpinned_host", "device")]:
        r = f(jax.device_put(X, jax.sharding.SingleDeviceSharding(d, memory_kind=kind)))
        assert r.sharding.memory_kind == want, kind
        np.testing.assert_array_equal(np.asarray(r), X - 1)
