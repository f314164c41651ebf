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
