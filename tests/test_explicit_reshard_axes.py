"""`jax.reshard` takes layouts over Explicit axes only, as JAX 0.10.2's (its
`canonicalize_sharding`): a spec naming an Auto axis is its ValueError, eagerly and
inside `jit`, and a layout that is no NamedSharding / PartitionSpec its TypeError
(astjax constrained to the Auto axis silently, and crashed on a
SingleDeviceSharding). A sharded inner `jit` over an Auto mesh still constrains its
arguments and results inside another program (JAX's sharding constraints there).
Messages checked against JAX 0.10.2 with 4 CPU devices (JAX appends "This error
occurs at source: ..."; astjax's error carries the location instead)."""
import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError
from astjax.sharding import AxisType, NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

_X = np.arange(8.0, dtype=np.float32).reshape(4, 2)
_AUTO = ("PartitionSpec passed to reshard cannot contain axis names that are of type Auto "
         "or Manual. Got PartitionSpec: {} with axis name: {} of type: AxisType.Auto.")


def _mesh(*types):
    return jax.make_mesh((2, 2), ("x", "y"), axis_types=types)


@pytest.mark.parametrize("staged", [False, True])
def test_reshard_to_an_auto_axis_is_jax_value_error(staged):
    auto = _mesh(AxisType.Auto, AxisType.Auto)

    def f(x):
        return jax.reshard(x, NamedSharding(auto, P("x")))
    with pytest.raises(ValueError) as info:
        (jax.jit(f) if staged else f)(_X)
    assert isinstance(info.value, AstjaxError)
    assert info.value.message == _AUTO.format("P('x',)", "x")


def test_reshard_names_the_auto_axis_of_a_mixed_mesh_and_allows_the_explicit_one():
    mixed = _mesh(AxisType.Auto, AxisType.Explicit)
    with pytest.raises(ValueError) as info:
        jax.jit(lambda x: jax.reshard(x * 2, NamedSharding(mixed, P("x"))))(_X)
    assert info.value.message == _AUTO.format("P('x',)", "x")
    with jax.set_mesh(_mesh(AxisType.Auto, AxisType.Auto)), pytest.raises(ValueError):
        jax.jit(lambda x: jax.reshard(x, P("x")))(_X)      # (a spec over set_mesh's mesh)


def test_reshard_to_a_single_device_is_jax_type_error():
    s = jax.sharding.SingleDeviceSharding(jax.devices()[1])
    with pytest.raises(TypeError) as info:
        jax.reshard(_X, s)
    assert info.value.message == (
        "`out_sharding` argument of reshard only supports instances of `NamedSharding` or "
        f"`PartitionSpec`. Got {s} of type: {type(s)}")


def test_inner_sharded_jit_over_an_auto_mesh_is_still_constrained():
    auto = _mesh(AxisType.Auto, AxisType.Auto)
    inner = jax.jit(lambda v: v * 2, in_shardings=NamedSharding(auto, P("x")),
                    out_shardings=NamedSharding(auto, P(None, "y")))
    f = jax.jit(lambda v: inner(v) + 1)
    assert "sharding_constraint" in str(jax.make_jaxpr(f)(_X))
    np.testing.assert_array_equal(np.asarray(f(_X)), _X * 2 + 1)
