"""`jit(f).lower(struct)` of a ShapeDtypeStruct laid out on one device under `set_mesh`
of a mesh of other devices is JAX 0.10.2's ValueError (astjax lowered it for that
device, found by the eval_shape sharding sweep); on a one-device mesh of the same
device it lowers, as JAX."""
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.sharding import AxisType, SingleDeviceSharding

JAX_MESSAGE = ("Received incompatible devices for jitted computation. Got argument x of "
               "<lambda> with shape float32[4] and with device ids [{d}] on platform CPU and "
               "jit's context mesh with device ids [0, 1, 2, 3] on platform CPU")


double = lambda x: x * 2   # noqa: E731  (module level: JAX names it `<lambda>`)


def _struct(d):
    return jax.ShapeDtypeStruct((4,), jnp.float32, sharding=SingleDeviceSharding(jax.devices()[d]))


@pytest.mark.parametrize("d", [0, 3])
def test_a_single_device_struct_off_the_context_mesh_is_jax_valueerror(d):
    mesh = jax.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Explicit,) * 2,
                         devices=jax.devices()[:4])
    with jax.set_mesh(mesh), pytest.raises(ValueError) as info:
        jax.jit(double).lower(_struct(d))
    assert JAX_MESSAGE.format(d=d) in " ".join(str(info.value).split())   # (wrapped lines)


def test_the_same_device_as_a_one_device_context_mesh_lowers():
    mesh = jax.make_mesh((1,), ("a",), axis_types=(AxisType.Explicit,), devices=jax.devices()[:1])
    with jax.set_mesh(mesh):
        assert "func.func" in jax.jit(double).lower(_struct(0)).as_text()
