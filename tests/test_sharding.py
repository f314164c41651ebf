"""`astjax.sharding`'s data model against JAX 0.10.2's behaviour (reprs, index maps
and errors recorded from JAX with 4 forced host devices)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.sharding import (AbstractMesh, AxisType, DuplicateSpecError, IndivisibleError, Mesh,
                             NamedSharding, PartitionSpec as P, SingleDeviceSharding)


class _Dev:
    """A stand-in device (this machine has one): id, process_index, client."""

    def __init__(self, i):
        self.id, self.process_index = i, 0
        self.client = self

    def process_index(self):  # noqa: F811  (the client's method)
        return 0

    def __repr__(self):
        return f"CpuDevice(id={self.id})"


def _mesh(types=(AxisType.Explicit, AxisType.Explicit)):
    devs = np.empty(4, object)
    devs[:] = [_Dev(i) for i in range(4)]
    return Mesh(devs.reshape(2, 2), ("a", "b"), types)


def test_partition_spec():
    assert repr(P("x", None)) == "P('x', None)" and repr(P()) == "P()"
    assert repr(P(("x", "y"))) == "P(('x', 'y'),)"
    assert P("x", None) != P("x") and P("x") != ("x",)
    assert len(P("x", None)) == 2 and P("x")[0] == "x" and hash(P("x")) == hash(P("x"))
    assert repr(P.UNCONSTRAINED) == "UNCONSTRAINED"
    assert astjax.P is P
    with pytest.raises(TypeError):
        P(3)


def test_mesh():
    m = _mesh()
    assert repr(m) == "Mesh('a': 2, 'b': 2, axis_types=(Explicit, Explicit))"
    assert list(m.shape.items()) == [("a", 2), ("b", 2)] and m.size == 4
    assert m.axis_names == ("a", "b") and m.devices.shape == (2, 2)
    assert Mesh(m.devices.reshape(4), ("x",)).axis_types == (AxisType.Auto,)
    with pytest.raises(ValueError, match="ndim"):
        Mesh(m.devices, ("x",))


def test_named_sharding_maps_like_jax():
    m = _mesh()
    s = NamedSharding(m, P("a"))
    assert repr(s) == ("NamedSharding(mesh=Mesh('a': 2, 'b': 2, axis_types=(Explicit, "
                       "Explicit)), spec=P('a',), memory_kind=device)")
    assert not s.is_fully_replicated and s.num_devices == 4 and s.shard_shape((4, 6)) == (2, 6)
    full = slice(None)
    assert [v for _, v in sorted((d.id, v) for d, v in s.devices_indices_map((4, 6)).items())] == [
        (slice(0, 2), full), (slice(0, 2), full), (slice(2, 4), full), (slice(2, 4), full)]
    s2 = NamedSharding(m, P(("a", "b"), None))
    assert s2.shard_shape((8, 3)) == (2, 3)
    assert [v[0] for _, v in sorted((d.id, v) for d, v in s2.devices_indices_map((8, 3)).items())] == [
        slice(0, 2), slice(2, 4), slice(4, 6), slice(6, 8)]
    assert NamedSharding(m, P()).is_fully_replicated
    assert s.is_equivalent_to(NamedSharding(m, P("a", None)), 2)
    assert not s.is_equivalent_to(NamedSharding(m, P("b")), 2)


def test_named_sharding_errors_are_jax_classes():
    m = _mesh()
    with pytest.raises(IndivisibleError, match="partitioned 2 times, but the dimension size is 3"):
        NamedSharding(m, P("a")).shard_shape((3, 6))
    with pytest.raises(ValueError, match="Resource axis: c of P\\('c',\\) is not found"):
        NamedSharding(m, P("c"))
    with pytest.raises(DuplicateSpecError, match="duplicate entries for `a`"):
        NamedSharding(m, P("a", "a"))
    assert issubclass(IndivisibleError, ValueError) and issubclass(DuplicateSpecError, ValueError)


def test_single_device_sharding_and_array_sharding():
    x = jnp.ones(3)
    s = x.sharding
    assert isinstance(s, SingleDeviceSharding) and s.device_set == {astjax.devices()[0]}
    assert repr(s) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    assert s.is_fully_replicated and s.shard_shape((2, 3)) == (2, 3)
    assert s.devices_indices_map((2, 3)) == {astjax.devices()[0]: (slice(None), slice(None))}


def test_make_mesh_and_current_mesh():
    m = astjax.make_mesh((1,), ("x",))
    assert repr(m) == "Mesh('x': 1, axis_types=(Explicit,))"
    assert repr(astjax.sharding.get_mesh()) == "Mesh(axis_sizes=(), axis_names=())"
    with astjax.set_mesh(m) as got:
        assert got is m and astjax.sharding.get_mesh() is m
        # JAX 0.10.2: the mesh's AbstractMesh keeps its devices' kind, so it is not
        # equal to one built by hand
        assert astjax.sharding.get_abstract_mesh() == m.abstract_mesh != AbstractMesh(
            (1,), ("x",), (AxisType.Explicit,))
        assert repr(m.abstract_mesh) == ("AbstractMesh('x': 1, axis_types=(Explicit,), "
                                         "device_kind=cpu, num_cores=None, platform=cpu)")
    assert astjax.sharding.get_mesh().empty
    with pytest.raises(ValueError, match="must be >= the product"):
        astjax.make_mesh((len(astjax.devices()) + 1,), ("x",))
    setter = astjax.set_mesh(m)  # also a plain setter
    assert astjax.sharding.get_mesh() is m
    with _mesh():
        assert astjax.sharding.get_mesh().axis_names == ("a", "b")
    assert astjax.sharding.get_mesh() is m
    setter.__exit__(None, None, None)   # (what the test set, undone)
    assert astjax.make_mesh((1,), ("x",), axis_types=(AxisType.Auto,)).axis_types == (AxisType.Auto,)
