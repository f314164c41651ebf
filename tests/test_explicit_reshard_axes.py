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


def _constraints(text):
    return [line.split(" = ", 1)[1] for line in text.splitlines()
            if "sdy.sharding_constraint" in line or "@Sharding(" in line]


def test_reshard_inside_auto_axes_lowers_to_nothing():
    """Inside `auto_axes` (every axis Auto) a `reshard` lowers to no constraint, as
    JAX lowers a type's layout there (`lower_with_sharding_in_types`); astjax pinned
    the value replicated. JAX 0.10.2's text: the result's constraint only."""
    def g(a):
        return jax.reshard(a, P(None, None)) * 2

    def f(a):
        return jax.sharding.auto_axes(g, out_sharding=P("x", None))(a)
    with jax.set_mesh(_mesh(AxisType.Explicit, AxisType.Explicit)) as mesh:
        a = jax.device_put(_X, NamedSharding(mesh, P("x", None)))
        text = jax.jit(f).lower(a).as_text()
        np.testing.assert_array_equal(np.asarray(jax.jit(f)(a)), _X * 2)
    assert _constraints(text) == [
        'sdy.sharding_constraint %1 <@mesh, [{"x"}, {}]> : tensor<4x2xf32>']


@pytest.mark.parametrize("shardy", [True, False])
def test_reshard_on_a_mesh_with_auto_axes_leaves_dimensions_open(shardy):
    """Over a mesh with some Auto axes (`auto_axes(axes=...)`) a `reshard` leaves every
    dimension open to the partitioner and closes the unused Explicit axes (JAX 0.10.2's
    text: `[{?}, {?}], replicated={"x"}` / GSPMD's `unspecified_dims`)."""
    def g(a):
        return jax.reshard(a, P(None, None)), jax.reshard(a, P(None, "x"))
    old = jax.config.read("jax_use_shardy_partitioner")
    jax.config.update("jax_use_shardy_partitioner", shardy)
    try:
        with jax.set_mesh(_mesh(AxisType.Explicit, AxisType.Auto)) as mesh:
            text = jax.jit(g).lower(jax.device_put(_X, NamedSharding(mesh, P("x")))).as_text()
    finally:
        jax.config.update("jax_use_shardy_partitioner", old)
    got = _constraints(text)
    if shardy:
        assert got == [
            'sdy.sharding_constraint %arg0 <@mesh, [{?}, {?}], replicated={"x"}> : '
            'tensor<4x2xf32>',
            'sdy.sharding_constraint %arg0 <@mesh, [{?}, {"x", ?}]> : tensor<4x2xf32>']
        return
    # (JAX writes the second tiling `{devices=[1,2,2]<=[4] last_tile_dim_replicate}`:
    # the same tiling as astjax's explicit device list)
    call = ('stablehlo.custom_call @Sharding(%arg0) {backend_config = "unspecified_dims=[0,1]"'
            ', mhlo.sharding = "{')
    assert got[0] == call + 'replicated}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>'
    assert got[1].startswith(call + "devices=[1,2,2]") and len(got) == 2


def test_inner_sharded_jit_keeps_its_arguments_types():
    """On an Explicit mesh an inner `jit`'s in_shardings / out_shardings constrain the
    layout but leave the type as it was (JAX 0.10.2: `typeof` inside and after is
    `float32[4,2]`; `eval_shape` gives no sharding without `set_mesh`, replicated over
    it); astjax typed the values as the in_shardings."""
    mesh = _mesh(AxisType.Explicit, AxisType.Explicit)
    inner_in = jax.jit(lambda a: a * 2, in_shardings=NamedSharding(mesh, P("x")))
    inner_out = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P("x")))
    x = jax.ShapeDtypeStruct((4, 2), np.float32)
    for inner in (inner_in, inner_out):
        assert jax.eval_shape(lambda a: inner(a) + 1, x).sharding is None
        with jax.set_mesh(mesh):
            got = jax.eval_shape(lambda a: inner(a) + 1, x).sharding
        assert got.spec == P(None, None) and got.mesh == mesh.abstract_mesh
    seen = []

    def body(a):
        seen.append(str(jax.typeof(a)))
        return a * 2
    inner = jax.jit(body, in_shardings=NamedSharding(mesh, P("x")))
    rep = jax.device_put(_X, NamedSharding(mesh, P()))
    with jax.set_mesh(mesh):
        out = jax.jit(lambda a: inner(a) + 1)(rep)
    assert seen == ["float32[4,2]"] and out.sharding.spec == P(None, None)
    np.testing.assert_array_equal(np.asarray(out), _X * 2 + 1)


_ASSERT = ("`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
           "`Explicit`. The array sharding: {} did not match the sharding provided: {}. Please "
           "use `jax.sharding.reshard` to shard your input to the sharding you want.")


@pytest.mark.parametrize("staged", [False, True])
def test_with_sharding_constraint_asserts_the_type_on_an_explicit_mesh(staged):
    """Under `set_mesh` of an Explicit mesh `with_sharding_constraint` asserts the
    value's type (JAX 0.10.2's AssertionError) and constrains nothing; astjax resharded
    silently."""
    wsc = jax.lax.with_sharding_constraint
    mesh = _mesh(AxisType.Explicit, AxisType.Explicit)
    with jax.set_mesh(mesh):
        a = jax.device_put(_X, NamedSharding(mesh, P("x")))
        run = jax.jit if staged else (lambda f: f)
        same = run(lambda v: wsc(v, P("x")))(a)
        assert str(jax.typeof(same)) == "float32[4@x,2]"
        with pytest.raises(AssertionError) as info:
            run(lambda v: wsc(v, P(None, "y")))(a)
        with pytest.raises(ValueError) as unconstrained:
            run(lambda v: wsc(v, P(P.UNCONSTRAINED, "y")))(a)
        text = jax.jit(lambda v: wsc(v * 2, P("x"))).lower(a).as_text()
    assert isinstance(info.value, AstjaxError)
    assert info.value.message == _ASSERT.format("P('x', None)", "P(None, 'y')")
    assert unconstrained.value.message == (
        "P(UNCONSTRAINED, 'y') cannot contain `P.UNCONSTRAINED` when no mesh axis_types are "
        "`Auto`. Got mesh axis_types: (Explicit, Explicit)")
    # JAX 0.10.2: the multiplication's constraints only (its scalar's and its result's)
    assert _constraints(text) == [
        'sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<4x2xf32>',
        'sdy.sharding_constraint %2 <@mesh, [{"x"}, {}]> : tensor<4x2xf32>']


def test_with_sharding_constraint_names_auto_axes_only_elsewhere():
    """Outside an Explicit context mesh a layout naming a non-Auto axis is JAX 0.10.2's
    ValueError (astjax constrained to it)."""
    wsc = jax.lax.with_sharding_constraint
    ex = _mesh(AxisType.Explicit, AxisType.Explicit)
    with pytest.raises(ValueError) as info:
        jax.jit(lambda v: wsc(v * 2, NamedSharding(ex, P("x"))))(_X)
    assert info.value.message == (
        "The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto "
        "axes of the mesh. Got spec=P('x',) and mesh=AbstractMesh('x': 2, 'y': 2, axis_types="
        "(Explicit, Explicit), device_kind=cpu, num_cores=None, platform=cpu). You probably "
        "meant to use `reshard` API?")
    with jax.set_mesh(_mesh(AxisType.Explicit, AxisType.Auto)), pytest.raises(ValueError):
        jax.jit(lambda v: wsc(v * 2, P("x")))(_X)


def test_asserting_constraint_is_transparent_to_grad_and_vmap():
    """JAX's asserting `with_sharding_constraint` leaves no equation, so `vmap` (checked
    on one row, `f32[4@y]`) and `grad` pass through it: no assertion against the
    batched or cotangent type."""
    wsc = jax.lax.with_sharding_constraint
    mesh = _mesh(AxisType.Explicit, AxisType.Explicit)
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    with jax.set_mesh(mesh):
        a = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
        rows = jax.jit(jax.vmap(lambda r: wsc(r * 2, P("y"))))(a)
        g = jax.jit(jax.grad(lambda v: (wsc(v, P("x", "y")) ** 2).sum()))(a)
    assert rows.sharding.spec == P("x", "y") and g.sharding.spec == P("x", "y")
    np.testing.assert_array_equal(np.asarray(rows), 2 * x)
    np.testing.assert_array_equal(np.asarray(g), 2 * x)
