"""Device placement (`jax.default_device`, `jax.devices(backend)`) and the Array API
standard names of `astjax.numpy`, as JAX 0.10.2 has them (its values noted beside
each check)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

needs2 = pytest.mark.skipif(len(jax.devices()) < 2, reason="needs 2 devices "
                            "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def _inc(a):
    return a + 1


@needs2
def test_default_device_places_eager_and_jit_results():
    d0, d1 = jax.devices()[:2]
    x = jnp.ones(3)                     # made before: moved in, as JAX moves an
    with jax.default_device(d1):        # uncommitted array
        y = jnp.ones(3) * 2
        assert y.devices() == {d1}
        assert jax.jit(_inc)(y).devices() == {d1}
        assert jax.jit(_inc)(x).devices() == {d1}
        z = x + y
        assert z.devices() == {d1}
        np.testing.assert_array_equal(z, [3., 3., 3.])
    assert jnp.ones(2).devices() == {d0}
    assert jax.jit(_inc)(x).devices() == {d0}
    assert jax.config.jax_default_device is None


@needs2
def test_default_device_config_flag_and_platform_name():
    d0, d1 = jax.devices()[:2]
    try:
        jax.config.update("jax_default_device", d1)
        assert jnp.arange(3).devices() == {d1}
        assert jax.jit(lambda: jnp.ones(2))().devices() == {d1}
    finally:
        jax.config.update("jax_default_device", None)
    assert jnp.arange(3).devices() == {d0}
    with jax.default_device("cpu"):
        assert jnp.ones(2).devices() == {jax.devices("cpu")[0]}


def test_devices_by_backend():
    assert jax.devices("cpu") == jax.devices()
    assert jax.local_devices(backend="cpu") == jax.local_devices()
    assert jax.device_count("cpu") == len(jax.devices())
    with pytest.raises(RuntimeError, match="Unknown backend"):
        jax.devices("tpu")


def test_namespace_version_and_info():
    x = jnp.arange(6.).reshape(2, 3)
    assert jnp.__array_api_version__ == "2024.12"
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version="2024.12") is jnp
    with pytest.raises(ValueError, match="not available"):
        x.__array_namespace__(api_version="2023.12")
    info = jnp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": False, "data-dependent shapes": False,
                                   "max dimensions": 64}
    assert info.default_device() is None and info.devices() == [None, *jax.devices()]
    assert info.default_dtypes() == {"real floating": np.float32,
                                     "complex floating": np.complex64,
                                     "integral": np.int32, "indexing": np.int32}
    with jax.enable_x64():
        assert info.default_dtypes()["integral"] == np.int64
        assert "float64" in info.dtypes()
    # JAX 0.10.2, x64 off: 9 dtypes, 32-bit at most
    assert set(info.dtypes()) == {"bool", "int8", "int16", "int32", "uint8", "uint16",
                                  "uint32", "float32", "complex64"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64"}
    with pytest.raises(ValueError):
        info.dtypes(kind="strings")


def test_device_argument_and_to_device():
    d = jax.devices()[-1]
    for make in (lambda: jnp.zeros(3, device=d), lambda: jnp.ones((2,), device=d),
                 lambda: jnp.empty(2, device=d), lambda: jnp.full((2,), 1., device=d),
                 lambda: jnp.arange(3, device=d), lambda: jnp.linspace(0, 1, 3, device=d),
                 lambda: jnp.eye(2, device=d), lambda: jnp.asarray([1, 2], device=d),
                 lambda: jnp.array([1, 2], device=d),
                 lambda: jnp.zeros_like(jnp.ones(2), device=d),
                 lambda: jnp.full_like(jnp.ones(2), 3, device=d),
                 lambda: jnp.astype(jnp.ones(2), jnp.int32, device=d)):
        assert make().devices() == {d}
    import inspect
    assert "device" in inspect.signature(jnp.zeros).parameters
    x = jnp.arange(3.)
    y = x.to_device(d)
    assert y.device == d
    np.testing.assert_array_equal(y, [0., 1., 2.])


def test_copy_keywords_and_itemsize():
    x = jnp.arange(3.)
    assert jnp.asarray(x) is x and jnp.asarray(x, copy=True) is not x
    assert jnp.astype(x, jnp.float32) is x        # JAX: no cast, no copy
    assert jnp.astype(x, jnp.float32, copy=True) is not x
    assert jnp.reshape(x, (3, 1), copy=True).shape == (3, 1)
    assert x.reshape(1, 3, copy=False).shape == (1, 3)
    assert (x.itemsize, jnp.ones(2, jnp.int8).itemsize) == (4, 1)


def test_dlpack_both_ways():
    x = jnp.arange(6.).reshape(2, 3)
    assert int(x.__dlpack_device__()[0]) == 1  # kDLCPU
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(6.).reshape(2, 3))
    y = jnp.from_dlpack(np.arange(3))
    assert y.dtype == jnp.int32 and isinstance(y, jax.Array)   # JAX: int32 with x64 off
    np.testing.assert_array_equal(jnp.from_dlpack(x, copy=True), x)
    assert jnp.from_dlpack(x, device=jax.devices()[-1]).devices() == {jax.devices()[-1]}
    with pytest.raises(TypeError):
        jax.jit(lambda v: jnp.from_dlpack(v))(x)


def test_unique_results_are_named_tuples():
    r = jnp.unique_all(jnp.array([3, 1, 3, 2]))
    assert type(r).__name__ == "_UniqueAllResult"
    np.testing.assert_array_equal(r.values, [1, 2, 3])
    np.testing.assert_array_equal(r.indices, [1, 3, 0])
    np.testing.assert_array_equal(r.inverse_indices, [2, 0, 2, 1])
    np.testing.assert_array_equal(r.counts, [1, 1, 2])
    assert jnp.unique_counts(jnp.array([1, 1])).counts.tolist() == [2]
    inv = jnp.unique_inverse(jnp.array([[1, 2], [2, 3]]))
    assert inv.inverse_indices.shape == (2, 2)


def test_dtype_objects_compare_false_with_junk():
    assert (jnp.float32 == {"a": 1}) is False
    assert (jnp.float32 == "text: a, b") is False
    assert jnp.float32 == "float32"
    assert not hasattr(jnp, "no_such_name") and getattr(jnp, "no_such_name", 5) == 5


def test_jax_dlpack_module():
    from astjax.compat import dlpack
    assert dlpack.is_supported_dtype(jnp.float32) and dlpack.is_supported_dtype(jnp.bfloat16)
    assert not dlpack.is_supported_dtype(np.dtype("U3"))
    np.testing.assert_array_equal(dlpack.from_dlpack(np.arange(3.)), [0., 1., 2.])


def test_array_methods_view_searchsorted_compress_choose_tobytes():
    x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
    # JAX 0.10.2: bit patterns of 0., 1., 2. as int32; shapes grow / shrink on the last axis
    np.testing.assert_array_equal(x.view(jnp.int32)[0], [0, 1065353216, 1073741824])
    assert x.view(jnp.int16).shape == (2, 6) and x.view().dtype == jnp.float32
    np.testing.assert_array_equal(jnp.ones((2, 4), jnp.int16).view(jnp.float32),
                                  np.ones((2, 4), np.int16).view(np.float32))
    np.testing.assert_array_equal(jnp.array([0, 1, 2], jnp.int8).view(jnp.bool_),
                                  [False, True, True])
    np.testing.assert_array_equal(jax.jit(lambda v: v.view(jnp.int32))(x),
                                  np.arange(6, dtype=np.float32).reshape(2, 3).view(np.int32))
    with pytest.raises(ValueError, match="divisor"):
        jnp.ones((2, 3), jnp.int16).view(jnp.float32)
    assert int(jnp.arange(5.).searchsorted(2.5)) == 3
    np.testing.assert_array_equal(x.compress(jnp.array([True, False]), axis=0), [[0., 1., 2.]])
    np.testing.assert_array_equal(jnp.array([0, 1]).choose([jnp.zeros(2), jnp.ones(2)]),
                                  [0., 1.])
    assert jnp.arange(2, dtype=jnp.int8).tobytes() == b"\x00\x01"
    np.testing.assert_array_equal(jnp.array([3, 1, 2]).argpartition(1)[:2].sort(), [1, 2])


@pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices (conftest.py)")
def test_device_argument_with_a_sharding():
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P
    s = NamedSharding(Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y")), P("x", "y"))
    assert jnp.zeros((4, 4), device=s).sharding.spec == P("x", "y")
    # JAX 0.10.2 ignores device= inside jit (its jaxpr is a plain broadcast_in_dim)
    out = jax.jit(lambda: jnp.ones((4, 4), device=s))()
    assert out.devices() == {jax.devices()[0]}


_DEFAULT_DEVICE_SCRIPT = """
import astjax as jax, astjax.numpy as jnp
d0, d1 = jax.devices()
x = jnp.ones(3)
with jax.default_device(d1):
    y = jnp.ones(3) * 2
    f = jax.jit(lambda a: a + 1)
    print(y.devices() == {d1}, f(y).devices() == {d1}, f(x).devices() == {d1},
          (x + y).devices() == {d1})
print(jnp.ones(2).devices() == {d0}, jax.jit(lambda a: a * 2)(x).devices() == {d0})
"""


def test_default_device_in_a_fresh_two_device_process(tmp_path):
    import os
    import subprocess
    import sys
    script = tmp_path / "default_device.py"   # a file: jit stages from source
    script.write_text(_DEFAULT_DEVICE_SCRIPT)
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="2")
    out = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True"] * 6
