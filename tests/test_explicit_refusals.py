"""Programs over meshes that JAX 0.10.2 refuses and astjax used to run (issue 13):
each case records JAX's exception class and message (run on JAX 0.10.2 with 4 CPU
devices), and astjax must raise the same class, never compute a result."""
import numpy as np
import pytest

import astjax as jax
from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


# ------------------------------------------------ the same devices in another order


@pytest.fixture(scope="module")
def permuted():
    """(y, z): one value laid out `P('x')` over the devices in order and over the
    same devices with the last two swapped (Distributed_arrays cell 28)."""
    d = jax.devices()[:4]
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    y = jax.device_put(x, NamedSharding(Mesh(d, "x"), P("x")))
    z = jax.device_put(x, NamedSharding(Mesh([d[i] for i in (0, 1, 3, 2)], "x"), P("x")))
    return y, z


_IDS = (r"with device ids \[0, 1, 2, 3\] on platform CPU and .*with device ids "
        r"\[0, 1, 3, 2\] on platform CPU")

# (case, JAX 0.10.2's message)
PERMUTED = [
    # JAX: "... Got argument x of add with shape float32[4,4] and with device ids
    # [0, 1, 2, 3] on platform CPU and argument y of add with shape float32[4,4] and
    # with device ids [0, 1, 3, 2] on platform CPU"
    ("eager_add", lambda y, z: y + z, _IDS),
    ("jit_add", lambda y, z: jax.jit(lambda a, b: a + b)(y, z), _IDS),
    # JAX: "... Got ARG_SHARDING with device ids [0, 1, 3, 2] on platform CPU and
    # explicit output sharding with device ids [0, 1, 2, 3] on platform CPU"
    ("in_out_shardings", lambda y, z: jax.jit(lambda a: a, in_shardings=z.sharding,
                                              out_shardings=y.sharding)(np.ones(4)), ""),
]


@pytest.mark.parametrize("case,fn,msg", PERMUTED, ids=[c[0] for c in PERMUTED])
def test_same_devices_in_another_order_are_incompatible(permuted, case, fn, msg):
    """JAX compares device assignments, not device sets: arrays over the same devices
    in another order are not one program's arguments (ValueError)."""
    with pytest.raises(ValueError, match="Received incompatible devices for jitted "
                       "computation" + (". Got .*" + msg if msg else "")):
        fn(*permuted)


def test_permuted_argument_under_set_mesh(permuted):
    """Under `set_mesh`, an argument over the mesh's devices in another order is JAX's
    ValueError naming jit's context mesh."""
    y, z = permuted
    with jax.set_mesh(y.sharding.mesh):
        with pytest.raises(ValueError, match=r"Got argument a of \S*<lambda> with shape "
                           r"float32\[4,4\] and with device ids \[0, 1, 3, 2\] on platform "
                           r"CPU and jit's context mesh with device ids \[0, 1, 2, 3\]"):
            jax.jit(lambda a: a * 2)(z)


def test_same_order_still_runs(permuted):
    """Arrays over one device assignment (whatever their meshes' objects) combine."""
    y, _ = permuted
    d = jax.devices()[:4]
    w = jax.device_put(np.ones((4, 4), np.float32), NamedSharding(Mesh(list(d), "x"), P("x")))
    np.testing.assert_allclose(y + w, np.arange(16).reshape(4, 4) + 1)


# ------------------------------------------- eval_shape of a jit given out_shardings


def _eval_shape_cases():
    explicit = jax.make_mesh((2, 2), ("a", "b"))
    auto = jax.make_mesh((2, 2), ("a", "b"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    return [("explicit", NamedSharding(explicit, P("a"))), ("auto", NamedSharding(auto, P("a")))]


@pytest.mark.parametrize("kind", ["explicit", "auto"])
@pytest.mark.parametrize("arg", ["struct", "array"])
def test_eval_shape_of_jit_with_out_shardings(kind, arg):
    """JAX's `eval_shape` of a `jit` is its `.trace(...).out_info`: laid out as its
    `out_shardings` (the concrete NamedSharding given), not untyped / typed by the
    argument's layout (JAX 0.10.2: `ShapeDtypeStruct(shape=(8, 4), dtype=float32,
    sharding=NamedSharding(mesh=Mesh('a': 2, 'b': 2, axis_types=(Explicit, Explicit)),
    spec=P('a',), memory_kind=device))`, for either argument)."""
    out = dict(_eval_shape_cases())[kind]
    f = jax.jit(lambda x: x * 2, out_shardings=out)
    mesh = jax.make_mesh((2, 2), ("a", "b"))
    x = (jax.ShapeDtypeStruct((8, 4), np.float32) if arg == "struct" else
         jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("b"))))
    r = jax.eval_shape(f, x)
    assert (r.shape, r.dtype) == ((8, 4), np.float32)
    assert r.sharding == out and type(r.sharding.mesh) is Mesh


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")   # (seen.append)
def test_eval_shape_of_jit_with_out_shardings_inside_jit():
    """Also inside another `jit` (JAX: the same concrete out_shardings)."""
    out = dict(_eval_shape_cases())["explicit"]
    f = jax.jit(lambda x: x * 2, out_shardings=out)
    seen = []

    @jax.jit
    def g(x):
        seen.append(jax.eval_shape(f, x).sharding)
        return x
    g(np.ones((8, 4), np.float32))
    assert seen == [out]


def test_eval_shape_of_jit_with_spec_out_shardings_under_set_mesh():
    """`out_shardings=P('a')` under `set_mesh`: the mesh's NamedSharding (JAX 0.10.2:
    `NamedSharding(mesh=Mesh('a': 2, 'b': 2, axis_types=(Explicit, Explicit)),
    spec=P('a',))`; astjax gave `P(None, None)` over the AbstractMesh)."""
    mesh = jax.make_mesh((2, 2), ("a", "b"))
    with jax.set_mesh(mesh):
        r = jax.eval_shape(jax.jit(lambda x: x * 2, out_shardings=P("a")),
                           jax.ShapeDtypeStruct((8, 4), np.float32))
    assert r.sharding == NamedSharding(mesh, P("a"))


# ------------------------------------------- an eager reshard inside auto_axes


def test_eager_auto_axes_keeps_the_layout_along_auto_axes():
    """Outside `jit`, `auto_axes` reshards its arguments to their types over the mesh
    made Auto: JAX's `reshard` leaves the layout along Auto axes to XLA, which keeps
    the array's (explicit-sharding notebook: "Concrete value sharding: P('X',)",
    "Type-specified sharding: P(None,)", over the Auto mesh); astjax moved the array
    to `P(None,)`. The result is laid out as `out_sharding` asks."""
    mesh = jax.make_mesh((2, 2), ("X", "Y"))
    seen = {}

    def inner(x):
        seen["spec"], seen["types"] = x.sharding.spec, x.sharding.mesh.axis_types
        seen["type"] = jax.typeof(x).sharding.spec
        return x * 2
    with jax.set_mesh(mesh):
        a = jax.reshard(np.arange(8, dtype=np.float32), P("X"))
        out = jax.sharding.auto_axes(inner)(a, out_sharding=P("X"))
    Auto = jax.sharding.AxisType.Auto
    assert seen == {"spec": P("X"), "types": (Auto, Auto), "type": P(None)}
    assert out.sharding == NamedSharding(mesh, P("X"))
    np.testing.assert_allclose(out, np.arange(8) * 2)


def test_eager_auto_axes_over_one_axis_keeps_the_layout():
    """`auto_axes(axes='X')`: the array stays `P('X', 'Y')` (JAX 0.10.2), over the mesh
    with `X` Auto."""
    mesh = jax.make_mesh((2, 2), ("X", "Y"))
    seen = []
    g = jax.sharding.auto_axes(lambda y: (seen.append(y.sharding), y * 2)[1], axes="X")
    with jax.set_mesh(mesh):
        a = jax.reshard(np.arange(16, dtype=np.float32).reshape(4, 4), P("X", "Y"))
        out = g(a, out_sharding=P("X", "Y"))
    (s,) = seen
    assert s.spec == P("X", "Y") and s.mesh.axis_types == (jax.sharding.AxisType.Auto,
                                                           jax.sharding.AxisType.Explicit)
    assert out.sharding == NamedSharding(mesh, P("X", "Y"))


def test_with_sharding_constraint_on_explicit_axes_of_a_laid_out_array():
    """Distributed_arrays cells 32-33: under `jit`, `with_sharding_constraint` naming the
    Explicit axes of `jax.make_mesh`'s mesh, on an array laid out over it, is JAX's
    ValueError (fixed by shd12; here on a laid-out argument, not a host value)."""
    mesh = jax.make_mesh((2, 2), ("x", "y"))
    x = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4),
                       NamedSharding(mesh, P("x", "y")))

    @jax.jit
    def f(x):
        return jax.lax.with_sharding_constraint(x + 1, NamedSharding(mesh, P("y", "x")))
    with pytest.raises(ValueError, match=r"The spec of NamedSharding passed to "
                       r"with_sharding_constraint can only refer to Auto axes of the mesh\. "
                       r"Got spec=P\('y', 'x'\)"):
        f(x)


# ------------------------------- types over a mesh with Explicit and Auto axes


def test_typeof_inside_auto_axes_over_one_axis_keeps_the_explicit_axes():
    """explicit-sharding notebook cell 9: inside `auto_axes(axes='X')` the type names the
    axes still Explicit (JAX 0.10.2: `float32[4,4@Y]`, under `jit` and eagerly; astjax
    dropped `4@Y`); the rules run on those types (`float32[4@Y]` after a reduction)."""
    mesh = jax.make_mesh((2, 2), ("X", "Y"))
    seen = []

    def inner(y):
        seen.append(str(jax.typeof(y)))
        seen.append(str(jax.typeof((jax.numpy.sin(y) * y).sum(axis=0))))
        return y * 2
    with jax.set_mesh(mesh):
        a = jax.reshard(np.arange(16, dtype=np.float32).reshape(4, 4), P("X", "Y"))
        g = jax.sharding.auto_axes(inner, axes="X")
        jitted = jax.jit(lambda a: g(a, out_sharding=P("X", "Y")))(a)
        eager = g(a, out_sharding=P("X", "Y"))
    assert seen == ["float32[4,4@Y]", "float32[4@Y]"] * 2
    for r in (jitted, eager):
        assert str(jax.typeof(r)) == "float32[4@X,4@Y]"
        np.testing.assert_allclose(r, np.arange(16).reshape(4, 4) * 2)


def test_sharding_type_error_inside_auto_axes_over_one_axis():
    """The types over the Explicit axes are checked as JAX checks them: contracting a
    dimension sharded on both sides over `Y` is JAX 0.10.2's ShardingTypeError (astjax
    ran it)."""
    mesh = jax.make_mesh((2, 2), ("X", "Y"))
    g = jax.sharding.auto_axes(lambda y: jax.numpy.sin(y) @ y.T, axes="X")
    with jax.set_mesh(mesh):
        a = jax.reshard(np.arange(16, dtype=np.float32).reshape(4, 4), P("X", "Y"))
        with pytest.raises(jax.sharding.ShardingTypeError, match=r"Contracting dimensions "
                           r"are sharded .* Got lhs_contracting_spec=\('Y',\) and "
                           r"rhs_contracting_spec=\('Y',\)"):
            jax.jit(lambda a: g(a, out_sharding=P("X", None)))(a)


# ------------------------------- device_put on one device keeps an Explicit type


@pytest.fixture(scope="module")
def single():
    """Distributed_arrays cells 21-22: an array typed `P('a', 'b')` over an Explicit mesh
    of 4 devices, `device_put` on device 0."""
    mesh = jax.make_mesh((2, 2), ("a", "b"))
    x = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4),
                       NamedSharding(mesh, P("a", "b")))
    return mesh, jax.device_put(x, jax.devices()[0])


def test_device_put_on_one_device_keeps_the_type(single):
    """JAX 0.10.2: `jax.typeof(x_single)` is `float32[4@a,4@b]` while its sharding is
    the one device's (astjax dropped the type); reading it back works."""
    mesh, xs = single
    assert str(jax.typeof(xs)) == "float32[4@a,4@b]"
    assert xs.sharding == jax.sharding.SingleDeviceSharding(jax.devices()[0])
    np.testing.assert_allclose(np.asarray(xs), np.arange(16).reshape(4, 4))
    moved = jax.device_put(xs, jax.devices()[1])     # (JAX: the type still kept)
    assert str(jax.typeof(moved)) == "float32[4@a,4@b]" and moved.devices() == {
        jax.devices()[1]}
    back = jax.device_put(xs, NamedSharding(mesh, P()))
    assert str(jax.typeof(back)) == "float32[4,4]"
    np.testing.assert_allclose(back + 1, np.arange(16).reshape(4, 4) + 1)


def test_operations_on_it_are_typed_then_refused(single):
    """The rules type an operation on it (JAX's ShardingTypeError for `jnp.dot(x, x)`:
    Distributed_arrays cell 22, which astjax ran); any other is JAX's ValueError (its one
    device is not its type's mesh), eagerly and under `jit`."""
    _, xs = single
    with pytest.raises(jax.sharding.ShardingTypeError, match=r"dot_general requires "
                       r"contracting dimensions to have consistent sharding, got \('b',\) "
                       r"and \('a',\)\."):
        jax.numpy.dot(xs, xs)
    msg = (r"Length of device assignment 1 is not equal to the size of the mesh 4 of aval "
           r"f32\[4@a,4@b\]\(\{Explicit: \('a', 'b'\)\}\)\. Please enter your `jit` into a "
           r"mesh context via `jax.set_mesh`\.")
    for f in (jax.numpy.sin, jax.jit(jax.numpy.sin), lambda v: v + np.ones((4, 4))):
        with pytest.raises(ValueError, match=msg):
            f(xs)
