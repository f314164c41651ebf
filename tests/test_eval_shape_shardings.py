"""Shardings of abstract evaluation as JAX 0.10.2's (issue 13): `eval_shape` and
`jit(f).trace(...)` / `.lower(...)` / `.compile()`'s `out_info` (and the arguments'
typed avals in `args_info` / `in_avals`) on ShapeDtypeStructs laid out over
Explicit mesh axes (a PartitionSpec over `set_mesh`'s mesh), on host values under
`set_mesh`, on Auto meshes (no sharding) and with `out_shardings` -- the results'
types, reductions and contractions included, and JAX's ShardingTypeError where the
layouts do not fit. `EXPECTED` is real JAX's output: `ASTJAX_NUM_CPU_DEVICES` is not
read by JAX, so record with
`XLA_FLAGS=--xla_force_host_platform_device_count=4 .ecoenv/bin/python
tests/test_eval_shape_shardings.py` (there `import jax` is JAX)."""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as anp


def cases(jax, jnp):
    """name -> a thunk giving the printed result (or raising)."""
    from_sh = jax.sharding
    P, NS = from_sh.PartitionSpec, from_sh.NamedSharding
    ex = jax.make_mesh((2, 2), ("a", "b"), axis_types=(from_sh.AxisType.Explicit,) * 2)
    au = jax.make_mesh((2, 2), ("a", "b"), axis_types=(from_sh.AxisType.Auto,) * 2)
    mixed = jax.make_mesh((2, 2), ("a", "b"),
                          axis_types=(from_sh.AxisType.Explicit, from_sh.AxisType.Auto))

    def S(mesh, *spec, shape=(4, 4)):
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NS(mesh, P(*spec)))

    def bare(spec=None):
        return jax.ShapeDtypeStruct((4, 4), jnp.float32, sharding=spec)

    def ev(f, *a, mesh=None):
        def run():
            if mesh is None:
                return str(jax.eval_shape(f, *a))
            with jax.set_mesh(mesh):
                return str(jax.eval_shape(f, *a))
        return run

    def info(stage, f, *a, mesh=None, **kw):
        def run():
            def go():
                t = jax.jit(f, **kw).trace(*a)
                return str((t if stage == "trace" else t.lower()).out_info)
            if mesh is None:
                return go()
            with jax.set_mesh(mesh):
                return go()
        return run

    def typeof_inside(x):
        out = []

        def f(x):
            out.append(str(jax.typeof(x)))
            return x
        with warnings.catch_warnings():   # (astjax names the side effect on `out`)
            warnings.simplefilter("ignore")
            jax.eval_shape(f, x)
        return out[0]

    double = lambda x: x * 2   # noqa: E731
    out = {
        "mul": ev(double, S(ex, "a")),
        "sum0": ev(lambda x: x.sum(0), S(ex, "a")),
        "sum1": ev(lambda x: x.sum(1), S(ex, "a")),
        "matmul_free": ev(lambda x, y: x @ y, S(ex, "a"), S(ex, None, "b", shape=(4, 8))),
        "matmul_twice": ev(lambda x: x @ x.T, S(ex, "a")),
        "matmul_contracting": ev(lambda x, y: x @ y, S(ex, None, "a"), S(ex, "a", None)),
        "pytree": ev(lambda d: {"y": d["x"] + 1, "z": d["x"].T}, {"x": S(ex, "a")}),
        "with_array": ev(lambda x, y: x * y, S(ex, "a"), jnp.ones((4, 4))),
        "reshape": ev(lambda x: x.reshape(16), S(ex, "a")),
        "broadcast": ev(lambda x: x[None] + 1, S(ex, "a", "b")),
        "grad": ev(jax.grad(lambda x: (x ** 2).sum()), S(ex, None, "b")),
        "vmap": ev(jax.vmap(lambda x: x.sum()), S(ex, "a", "b")),
        "scan": ev(lambda x: jax.lax.scan(lambda c, r: (c + r, c), jnp.zeros(4), x),
                   S(ex, None, "b")),
        "passthrough": ev(lambda x: (x, x), S(ex, None, "b")),
        "made_inside": ev(lambda x: jnp.zeros(3), S(ex, None, "b")),
        "typeof": lambda: typeof_inside(S(ex, None, "b")),
        "auto": ev(double, S(au, "a")),
        "mixed": ev(double, S(mixed, "a", "b")),
        "plain": ev(double, bare()),
        "set_mesh": ev(double, S(ex, "a"), mesh=ex),
        "set_mesh_unsharded": ev(double, bare(), mesh=ex),
        "set_mesh_spec": ev(double, bare(P("a")), mesh=ex),
        "set_mesh_numpy": ev(double, np.ones((4, 4), np.float32), mesh=ex),
        "set_mesh_scalar": ev(double, 3.0, mesh=ex),
        "set_mesh_scalar_sum": ev(lambda x: x + x, 3.0, mesh=ex),
        "set_mesh_mixed_args": ev(lambda x, y: x * y, np.ones((4, 4), np.float32),
                                  bare(P("a")), mesh=ex),
        "auto_set_mesh_spec": ev(double, bare(P("a")), mesh=au),
        "spec_without_mesh": ev(double, bare(P("a"))),
    }
    for stage in ("trace", "lower"):
        out.update({
            f"{stage}_explicit": info(stage, double, S(ex, "a")),
            f"{stage}_explicit_sum1": info(stage, lambda x: x.sum(1), S(ex, "a")),
            f"{stage}_explicit_out_shardings": info(stage, double, S(ex, "a"),
                                                    out_shardings=NS(ex, P(None, "b"))),
            f"{stage}_explicit_array": info(stage, double,
                                            jax.device_put(jnp.ones((4, 4)), NS(ex, P("a")))),
            f"{stage}_auto": info(stage, double, S(au, "a")),
            f"{stage}_auto_out_shardings": info(stage, double, S(au, "a"),
                                                out_shardings=NS(au, P(None, "b"))),
            f"{stage}_plain": info(stage, double, bare()),
            f"{stage}_weak": info(stage, double, 3.0),
            f"{stage}_set_mesh_unsharded": info(stage, double, bare(), mesh=ex),
            f"{stage}_set_mesh_spec": info(stage, double, bare(P("a")), mesh=ex),
            f"{stage}_auto_set_mesh": info(stage, double, bare(P("a")), mesh=au),
        })
    def compiled(*a):   # (JAX's also has `format=`: astjax's ShapeDtypeStruct has none)
        def run():
            o = jax.jit(lambda x, y: x * 2).lower(*a).compile().out_info
            return f"{o.sharding!r} weak_type={o.weak_type}"
        return run

    def args_info(stage, *a):
        def run():
            t = jax.jit(lambda x, y: x * 2).trace(*a)
            return str((t if stage == "trace" else t.lower()).args_info)
        return run

    def inside_jit():
        got = []
        x = jax.device_put(jnp.ones((4, 4)), NS(ex, P("a")))

        def f(x):
            got.append(str(jax.eval_shape(lambda y: y.sum(1), x)))
            return x
        with warnings.catch_warnings():   # (astjax names the side effect on `got`)
            warnings.simplefilter("ignore")
            jax.jit(f)(x)
        return got[0]

    def jaxpr(*a, mesh=None):
        def run():
            if mesh is None:
                return str(jax.make_jaxpr(lambda x: x.sum(0))(*a))
            with jax.set_mesh(mesh):
                return str(jax.make_jaxpr(lambda x: x.sum(0))(*a))
        return run

    def spec_read(mesh, what=lambda s: s.sharding):
        def run():
            s = bare(P("a"))
            if mesh is None:
                return str(what(s))
            with jax.set_mesh(mesh):
                return str(what(s))
        return run

    def jaxpr_shape(*a):
        def run():
            return str(jax.make_jaxpr(lambda x, y: (x.sum(1), y * 2), return_shape=True)(*a)[1])
        return run

    sds_a = S(ex, "a")
    out.update({
        "make_jaxpr_return_shape": jaxpr_shape(sds_a, 1.0),
        "make_jaxpr_return_shape_plain": jaxpr_shape(bare(), 1.0),
        "spec_sharding_set_mesh": spec_read(ex),
        "spec_sharding_without_mesh": spec_read(None),
        "spec_equals_named": spec_read(ex, lambda s: s == S(ex, "a")),
        "inside_jit": inside_jit,
        "make_jaxpr": jaxpr(S(ex, None, "b")),
        "make_jaxpr_set_mesh": jaxpr(bare(P("a", "b")), mesh=ex),
        "make_jaxpr_spec_without_mesh": jaxpr(bare(P("a"))),
        "compiled_explicit": compiled(sds_a, 1.0),
        "compiled_auto": compiled(S(au, "a"), 1.0),
        "compiled_plain": compiled(bare(), 1.0),
        "compiled_weak": compiled(3.0, 1.0),
        "args_info_trace": args_info("trace", sds_a, 1.0),
        "args_info_lower": args_info("lower", sds_a, 1.0),
        "in_avals_trace": lambda: str(jax.jit(lambda x, y: x).trace(sds_a, 1.0).in_avals),
    })
    return out


def outcome(thunk):
    """The printed result, or the builtin class of the error raised."""
    try:
        return thunk()
    except Exception as e:   # noqa: BLE001
        return "error: " + next(c.__name__ for c in type(e).__mro__
                                if c.__module__ == "builtins" or c.__name__ in (
                                    "ShardingTypeError",))


_AM = ("AbstractMesh('a': 2, 'b': 2, axis_types=(Explicit, Explicit), device_kind=cpu, "
       "num_cores=None, platform=cpu)")
_M = "Mesh('a': 2, 'b': 2, axis_types=(Explicit, Explicit))"
_MA = "Mesh('a': 2, 'b': 2, axis_types=(Auto, Auto))"


def _sds(shape, spec=None, mesh=_AM, weak=False, kind=""):
    sh = "" if spec is None else f", sharding=NamedSharding(mesh={mesh}, spec={spec}{kind})"
    return (f"ShapeDtypeStruct(shape={shape}, dtype=float32{sh}"
            f"{', weak_type=True' if weak else ''})")


_DEV = ", memory_kind=device"

#: JAX 0.10.2's results (recorded as the docstring says)
EXPECTED = {
    "mul": _sds((4, 4), "P('a', None)"),
    "sum0": _sds((4,), "P(None,)"),
    "sum1": _sds((4,), "P('a',)"),
    "matmul_free": _sds((4, 8), "P('a', 'b')"),
    "matmul_twice": "error: ShardingTypeError",
    "matmul_contracting": "error: ShardingTypeError",
    "pytree": "{'y': %s, 'z': %s}" % (_sds((4, 4), "P('a', None)"),
                                      _sds((4, 4), "P(None, 'a')")),
    "with_array": _sds((4, 4), "P('a', None)"),
    "reshape": _sds((16,), "P('a',)"),
    "broadcast": _sds((1, 4, 4), "P(None, 'a', 'b')"),
    "grad": _sds((4, 4), "P(None, 'b')"),
    "vmap": _sds((4,), "P('a',)"),
    "scan": "(%s, %s)" % (_sds((4,), "P('b',)"), _sds((4, 4))),
    "passthrough": "(%s, %s)" % (_sds((4, 4), "P(None, 'b')"), _sds((4, 4), "P(None, 'b')")),
    "made_inside": _sds((3,)),
    "typeof": "float32[4,4@b]",
    "auto": _sds((4, 4)),
    "mixed": _sds((4, 4)),
    "plain": _sds((4, 4)),
    "set_mesh": _sds((4, 4), "P('a', None)"),
    "set_mesh_unsharded": _sds((4, 4), "P(None, None)"),
    "set_mesh_spec": _sds((4, 4), "P('a', None)"),
    "set_mesh_numpy": _sds((4, 4), "P(None, None)"),
    "set_mesh_scalar": _sds((), "P()", weak=True),
    "set_mesh_scalar_sum": _sds((), "P()", weak=True),
    "set_mesh_mixed_args": _sds((4, 4), "P('a', None)"),
    "auto_set_mesh_spec": _sds((4, 4)),
    "spec_without_mesh": "error: TypeError",
    "trace_explicit": _sds((4, 4), "P('a', None)"),
    "trace_explicit_sum1": _sds((4,), "P('a',)"),
    "trace_explicit_out_shardings": _sds((4, 4), "P(None, 'b')", _M, kind=_DEV),
    "trace_explicit_array": _sds((4, 4), "P('a', None)"),
    "trace_auto": _sds((4, 4)),
    "trace_auto_out_shardings": _sds((4, 4), "P(None, 'b')", _MA, kind=_DEV),
    "trace_plain": _sds((4, 4)),
    "trace_weak": _sds((), weak=True),
    "trace_set_mesh_unsharded": _sds((4, 4), "P(None, None)"),
    "trace_set_mesh_spec": _sds((4, 4), "P('a', None)"),
    "trace_auto_set_mesh": _sds((4, 4)),
    "lower_explicit": _sds((4, 4), "P('a', None)", _M, kind=_DEV),
    "lower_explicit_sum1": _sds((4,), "P('a',)", _M, kind=_DEV),
    "lower_explicit_out_shardings": _sds((4, 4), "P(None, 'b')", _M, kind=_DEV),
    "lower_explicit_array": _sds((4, 4), "P('a', None)", _M, kind=_DEV),
    "lower_auto": _sds((4, 4)),
    "lower_auto_out_shardings": _sds((4, 4), "P(None, 'b')", _MA, kind=_DEV),
    "lower_plain": _sds((4, 4)),
    "lower_weak": _sds(()),
    "lower_set_mesh_unsharded": _sds((4, 4), "P(None, None)", _M, kind=_DEV),
    "lower_set_mesh_spec": _sds((4, 4), "P('a', None)", _M, kind=_DEV),
    "lower_auto_set_mesh": _sds((4, 4)),
    "spec_sharding_set_mesh": f"NamedSharding(mesh={_M}, spec=P('a',){_DEV})",
    "spec_sharding_without_mesh": "error: TypeError",
    "spec_equals_named": "True",
    "make_jaxpr_return_shape": "(%s, %s)" % (_sds((4,), "P('a',)"), _sds((), weak=True)),
    "make_jaxpr_return_shape_plain": "(%s, %s)" % (_sds((4,)), _sds((), weak=True)),
    "inside_jit": _sds((4,), "P('a',)"),
    "make_jaxpr": "{ lambda ; a:f32[4,4@b]. let\n    b:f32[4@b] = reduce_sum[axes=(0,) "
                  "out_sharding=None] a\n  in (b,) }",
    "make_jaxpr_set_mesh": "{ lambda ; a:f32[4@a,4@b]. let\n    b:f32[4@b] = reduce_sum["
                           "axes=(0,) out_sharding=None] a\n  in (b,) }",
    "make_jaxpr_spec_without_mesh": "error: TypeError",
    "compiled_explicit": f"NamedSharding(mesh={_M}, spec=P('a', None){_DEV}) weak_type=False",
    "compiled_auto": f"NamedSharding(mesh={_MA}, spec=P('a',){_DEV}) weak_type=False",
    "compiled_plain": "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device) "
                      "weak_type=False",
    "compiled_weak": "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device) "
                     "weak_type=False",
    "args_info_trace": "((ArgInfo(_aval=ShapedArray(float32[4@a,4]), donated=False), ArgInfo("
                       "_aval=ShapedArray(float32[], weak_type=True), donated=False)), {})",
    "args_info_lower": "((ArgInfo(_aval=ShapedArray(float32[4@a,4]), donated=False), ArgInfo("
                       "_aval=ShapedArray(float32[], weak_type=True), donated=False)), {})",
    "in_avals_trace": "((ShapedArray(float32[4@a,4]), ShapedArray(float32[], weak_type=True)),"
                      " {})",
}

pytestmark = pytest.mark.skipif(len(astjax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def table():
    return cases(astjax, anp)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_abstract_evaluation_shardings_as_jax(table, name):
    assert outcome(table[name]) == EXPECTED[name]


def test_sharding_type_error_is_located():
    mesh = astjax.make_mesh((2, 2), ("a", "b"),
                            axis_types=(astjax.sharding.AxisType.Explicit,) * 2)
    s = astjax.ShapeDtypeStruct((4, 4), anp.float32, sharding=astjax.sharding.NamedSharding(
        mesh, astjax.sharding.PartitionSpec("a")))
    with pytest.raises(astjax.sharding.ShardingTypeError) as e:
        astjax.eval_shape(lambda x: x @ x.T, s)
    assert e.value.loc is not None and e.value.loc.file == __file__
    assert "illegally sharded result" in e.value.message


if __name__ == "__main__":   # record: under .ecoenv, `jax` is JAX
    import jax
    import jax.numpy as jnp
    for k, v in sorted(cases(jax, jnp).items()):
        got = outcome(v)
        print(("   " if got == EXPECTED.get(k) else "DIFF"), k, got)
