"""JAX 0.10.2's remaining top-level, `tree_util`, `tree`, `debug` and `errors` names
(issue 13, item 13). Expected values are what JAX 0.10.2 gives for the same calls
(run under /work/jaxref/bin/python); flags are checked by what they change."""
import collections
import dataclasses
import io
import logging
import warnings

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import tree_util


# ------------------------------------------------------------------- tree_util / tree

P = collections.namedtuple("P", "a b")


@pytest.mark.parametrize("tree,children,meta", [
    ({"a": [1, 2], "b": {"c": 3}}, [[1, 2], {"c": 3}], ("a", "b")),
    ([1, (2, 3)], [1, (2, 3)], None),
    (None, [], None),
    (P(1, 2), [1, 2], P),
    (collections.OrderedDict(b=1, a=2), [1, 2], ("b", "a")),
])
def test_flatten_one_level(tree, children, meta):
    got, aux = tree_util.flatten_one_level(tree)
    assert list(got) == children and aux == meta
    keyed, aux2 = tree_util.flatten_one_level_with_keys(tree)
    assert [c for _, c in keyed] == children and aux2 == meta


def test_flatten_one_level_keys_and_leaf():
    keyed, _ = tree_util.flatten_one_level_with_keys({"a": 1, "b": 2})
    assert [k for k, _ in keyed] == [tree_util.DictKey("a"), tree_util.DictKey("b")]
    with pytest.raises(ValueError, match="can't tree-flatten type: <class 'int'>"):
        tree_util.flatten_one_level(1)


def test_is_tree_node_and_default_registry():
    assert [tree_util.is_tree_node(t) for t in (list, int, P, type(None), dict)] == \
        [True, False, True, True, True]
    leaves, td = tree_util.default_registry.flatten({"a": 1, "b": (2, None)})
    assert leaves == [1, 2] and repr(td) == "PyTreeDef({'a': *, 'b': (*, None)})"
    assert tree_util.default_registry.is_node(tuple)


def test_broadcast_and_reduce_associative():
    assert jax.tree.broadcast((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))) == \
        (1, {"a": 2, "b": 2}, (3, 3))
    with pytest.raises(ValueError):
        tree_util.tree_broadcast((1, 2), (0, 1, 2))
    assert jax.tree.reduce_associative(lambda a, b: f"({a}+{b})", [1, 2, 3, 4, 5]) == \
        "((1+2)+(3+(4+5)))"
    with pytest.raises(TypeError, match="Must specify identity"):
        tree_util.tree_reduce_associative(lambda a, b: a, [])
    assert tree_util.tree_reduce_associative(lambda a, b: a, [], identity=0) == 0


def test_tree_static_field():
    @tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: object
        op: str = jax.tree.static(default="add")
    leaves, td = jax.tree.flatten(Op(x=jnp.ones(2)))
    assert len(leaves) == 1 and jax.tree.unflatten(td, leaves).op == "add"

# ------------------------------------------------------------------------- errors


def test_error_classes():
    assert issubclass(jax.errors.JaxprTypeError, TypeError)
    assert issubclass(jax.errors.JaxprTypeError, jax.errors.AstjaxError)
    assert issubclass(jax.errors.InconclusiveDimensionOperation, Exception)

# -------------------------------------------------------------------------- debug


def test_breakpoint_under_jit_sees_runtime_values():
    out = io.StringIO()

    def f(x):
        y = jnp.sin(x) * 2
        jax.debug.breakpoint(stdin=io.StringIO("p y\nc\n"), stdout=out)
        return y + 1
    np.testing.assert_allclose(jax.jit(f)(jnp.arange(3.)), np.sin(np.arange(3.)) * 2 + 1,
                               rtol=1e-6)
    assert "1.6829" in out.getvalue() and "1.8185" in out.getvalue()


def test_breakpoint_token_and_ordered_exclusive():
    with pytest.raises(ValueError, match="mutually exclusive"):
        jax.debug.breakpoint(ordered=True, token=1)


def test_debug_log(caplog):
    def g(x):
        jax.debug.log("x={x}", x=x)
        return x
    with caplog.at_level(logging.INFO, logger="jax._src.debugging"):
        jax.jit(g)(jnp.ones(2))
    rec = [r for r in caplog.records if r.name == "jax._src.debugging"]
    assert rec and rec[-1].getMessage() == "x=[1. 1.]"
    assert rec[-1].pathname.endswith("test_top_names.py")


def test_inspect_array_sharding():
    seen = []
    jax.debug.inspect_array_sharding(jnp.ones(2), callback=seen.append)
    jax.jit(lambda x: jax.debug.inspect_array_sharding(x, callback=seen.append) or x)(
        jnp.ones(3))
    assert [type(s).__name__ for s in seen] == ["SingleDeviceSharding"] * 2
    assert str(jax.debug.DebugEffect()) == "Debug"
    assert str(jax.debug.OrderedDebugEffect()) == "OrderedDebug"

# --------------------------------------------------------------------- flags


def test_transfer_guard_host_to_device():
    x = jnp.arange(3.)
    with jax.transfer_guard("disallow"):
        with pytest.raises(jax.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            x + np.ones(3)
        with pytest.raises(RuntimeError, match="Disallowed host-to-device"):
            jax.jit(lambda a: a * 2)(np.ones(2))
        jax.device_put(np.ones(3))   # explicit: allowed
        np.asarray(x)                # device-to-host on the CPU: never guarded
    with jax.transfer_guard_host_to_device("disallow_explicit"):
        with pytest.raises(jax.errors.JaxRuntimeError):
            jax.device_put(np.ones(3))
    x + np.ones(3)                   # the guard is gone
    with pytest.raises(ValueError):
        with jax.transfer_guard("nope"):
            pass


def test_no_tracing_and_no_execution():
    x = jnp.ones(2)
    f = jax.jit(lambda x: x * 3)
    f(x)
    with jax.no_tracing():
        np.testing.assert_array_equal(f(x), [3., 3.])
        with pytest.raises(RuntimeError, match="'no_tracing' is set"):
            f(jnp.ones(4))
    with jax.no_execution():
        with pytest.raises(RuntimeError, match="no_execution config option is set"):
            f(x)
        with pytest.raises(RuntimeError, match="no_execution"):
            x + 1
    np.testing.assert_array_equal(f(x) + 1, [4., 4.])


def test_checking_leaks():
    store = []

    def g(x):
        y = jnp.sin(x)
        store.append(y)
        return y
    with jax.checking_leaks():
        jax.jit(lambda x: x + 1)(jnp.ones(2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(jax.errors.UnexpectedTracerError, match="Leaked"):
                jax.jit(g)(jnp.ones(2))


def test_enable_checks_runs_check_jaxpr(monkeypatch):
    from astjax import config_guards
    calls = []
    monkeypatch.setattr(config_guards, "check_jaxpr", calls.append)
    with jax.enable_checks():
        jax.jit(lambda x: jnp.cos(x) + 2)(jnp.ones(5))
    assert len(calls) == 1


def test_explain_cache_misses(caplog):
    h = jax.jit(lambda x: x - 1)
    with caplog.at_level(logging.WARNING, logger="jax"), jax.explain_cache_misses():
        h(jnp.ones(3))
        h(jnp.ones(3))
        h(jnp.ones(5))
    msgs = [r.getMessage() for r in caplog.records if "CACHE MISS" in r.getMessage()]
    assert len(msgs) == 2 and "never seen" in msgs[0] and "f32[3]" in msgs[1]


def test_make_user_context_restages():
    c = jax.make_user_context(1)
    k = jax.jit(lambda x: x + c.value)
    x = jnp.zeros(2)
    np.testing.assert_array_equal(k(x), [1, 1])
    with c(10):
        np.testing.assert_array_equal(k(x), [10, 10])
    np.testing.assert_array_equal(k(x), [1, 1])


def test_process_names_and_copy():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert (jax.host_count(), jax.host_id(), jax.host_ids()) == (1, 0, [0])
    assert len(w) == 3 and "renamed" in str(w[0].message)
    assert jax.process_indices() == [0]
    tree = {"a": jnp.ones(2), "b": 3}
    assert jax.copy_to_host_async(tree) is tree
    assert jax.version.__version__ == "0.10.2"
    assert jax.NamedSharding is jax.sharding.NamedSharding


def test_submodule_attributes():
    for name in ("ad_checkpoint", "custom_derivatives", "custom_batching", "dlpack",
                 "experimental", "image", "lib", "monitoring", "ops", "version"):
        assert hasattr(jax, name), name
    assert jax.dlpack.is_supported_dtype(np.float32)
    assert jax.lib.__version__ == jax.version.__version__ == "0.10.2"

# ------------------------------------------------------------- more top-level names


def test_custom_vmap():
    # values: JAX 0.10.2 on the same program
    from astjax.custom_batching import custom_vmap, sequential_vmap
    calls = []

    @custom_vmap
    def f(x, y):
        return x + jnp.sum(y)

    @f.def_vmap
    def rule(axis_size, in_batched, x, y):
        calls.append((axis_size, in_batched))
        x_b, y_b = in_batched
        s = jnp.sum(y, axis=-1)[:, None] if y_b else jnp.sum(y)
        x = x if x_b else jnp.broadcast_to(x, (axis_size,) + x.shape)
        return x + s, True
    x = jnp.arange(3.)
    np.testing.assert_array_equal(jax.jit(f)(x, x), [3., 4., 5.])
    np.testing.assert_array_equal(jax.vmap(f)(jnp.ones((2, 3)), jnp.ones((2, 4))),
                                  np.full((2, 3), 5.))
    assert calls == [(2, [True, True])]
    np.testing.assert_array_equal(jax.vmap(f, in_axes=(None, 0))(x, jnp.ones((2, 4))),
                                  [[4., 5., 6.]] * 2)
    assert calls[-1] == (2, [False, True])
    tangent = jax.jvp(jax.vmap(f), (jnp.ones((2, 3)), jnp.ones((2, 4))),
                      (jnp.ones((2, 3)), jnp.ones((2, 4))))[1]
    np.testing.assert_array_equal(tangent, np.full((2, 3), 5.))
    np.testing.assert_array_equal(jax.vmap(jax.vmap(f))(jnp.ones((2, 2, 3)),
                                                        jnp.ones((2, 2, 4))),
                                  np.full((2, 2, 3), 5.))
    g = sequential_vmap(lambda a, b: a * b.sum())
    np.testing.assert_array_equal(jax.vmap(g, in_axes=(0, None))(jnp.ones((2, 3)),
                                                                 jnp.arange(3.)),
                                  np.full((2, 3), 3.))
    assert "scan" in str(jax.make_jaxpr(jax.vmap(g, in_axes=(0, None)))(jnp.ones((2, 3)),
                                                                       jnp.arange(3.)))

    @custom_vmap
    def h(x):
        return x
    with pytest.raises(AttributeError, match="No batching rule"):
        h(1.)


def test_segment_ops():
    # values: JAX 0.10.2's jax.ops on the same data
    from astjax import ops
    d = jnp.arange(12.).reshape(6, 2)
    ids = jnp.array([0, 2, 2, -1, 5, 1])
    want = {"segment_sum": [[0, 1], [10, 11], [6, 8], [0, 0]],
            "segment_prod": [[0, 1], [10, 11], [8, 15], [1, 1]],
            "segment_max": [[0, 1], [10, 11], [4, 5], [-np.inf, -np.inf]],
            "segment_min": [[0, 1], [10, 11], [2, 3], [np.inf, np.inf]]}
    for name, w in want.items():
        np.testing.assert_array_equal(getattr(ops, name)(d, ids, 4), w)
        np.testing.assert_array_equal(getattr(ops, name)(d, ids, 4, bucket_size=2), w)
    np.testing.assert_array_equal(ops.segment_sum(jnp.arange(5), jnp.array([0, 0, 1, 3, 3])),
                                  [1, 2, 0, 7])
    assert int(ops.segment_max(jnp.arange(5), jnp.array([0, 0, 1, 3, 3]))[2]) == -2 ** 31
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda d, i: ops.segment_sum(d, i))(d, ids)


def test_monitoring_hears_compiles():
    from astjax import monitoring
    got = []

    def listener(event, secs, **kw):
        got.append((event, kw.get("fun_name")))
    monitoring.register_event_duration_secs_listener(listener)
    try:
        jax.jit(lambda x: x * 7 + 1)(jnp.ones(7))
        monitoring.record_event_duration_secs("/mine", 0.5, fun_name="f")
    finally:
        monitoring.unregister_event_duration_listener(listener)
    assert ("/jax/core/compile/backend_compile_duration", "jit__lambda") in got
    assert got[-1] == ("/mine", "f")
    with pytest.raises(ValueError):
        monitoring.unregister_event_duration_listener(listener)


def test_fwd_and_bwd():
    fwd, bwd = jax.fwd_and_bwd(lambda x, W: x @ W, argnums=(0, 1))
    y, res = fwd(jnp.ones((2, 2)), jnp.eye(2) * 2)
    cx, cw = bwd(res, jnp.ones((2, 2)))
    np.testing.assert_array_equal(cx, np.full((2, 2), 2.))
    np.testing.assert_array_equal(cw, np.full((2, 2), 2.))
    fwd, bwd = jax.fwd_and_bwd(lambda x: (jnp.sin(x), 3), argnums=0, has_aux=True,
                               jitted=False)
    y, res, aux = fwd(jnp.ones(2))
    assert aux == 3
    np.testing.assert_allclose(bwd(res, jnp.ones(2)), np.cos(np.ones(2)), rtol=1e-6)


def test_smap_matches_jax():
    # values: JAX 0.10.2 with four CPU devices
    assert len(jax.devices()) >= 4   # tests/conftest.py: ASTJAX_NUM_CPU_DEVICES=4
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    x = jnp.arange(16.).reshape(8, 2)
    with jax.set_mesh(mesh):
        f = jax.smap(lambda a: a * jax.lax.axis_index("x"), in_axes=0, out_axes=0,
                     axis_name="x")
        np.testing.assert_array_equal(f(x), np.arange(16.).reshape(8, 2)
                                      * np.repeat(np.arange(4), 2)[:, None])
        g = jax.smap(lambda a, b: a.sum(0, keepdims=True) + b, in_axes=(0, None),
                     out_axes=0, axis_name="x")
        np.testing.assert_array_equal(g(x, jnp.ones(2)), [[3, 5], [11, 13], [19, 21],
                                                          [27, 29]])
        h = jax.jit(jax.smap(lambda a: jax.lax.psum(a, "x"), in_axes=1, out_axes=None,
                             axis_name="x"))
        np.testing.assert_array_equal(h(jnp.arange(8.).reshape(2, 4)), [[6.], [22.]])
    with pytest.raises(TypeError):
        jax.smap(lambda a: a, in_axes=0, out_axes=0, axis_name=("x",))


def test_prng_flags():
    k = jax.random.PRNGKey(0)
    with jax.legacy_prng_key("error"):
        with pytest.raises(ValueError, match="Legacy uint32 key"):
            jax.random.normal(k)
        jax.random.normal(jax.random.key(0))
    with jax.legacy_prng_key("warn"), pytest.warns(UserWarning, match="Legacy uint32"):
        jax.random.split(k)
    with jax.enable_custom_prng(), pytest.warns(FutureWarning):
        assert jax.dtypes.issubdtype(jax.random.split(k).dtype, jax.dtypes.prng_key)
    with pytest.raises(ValueError):
        jax.config.update("jax_legacy_prng_key", "sometimes")
    with pytest.raises(ValueError):
        with jax.default_prng_impl("no_such_impl"):
            pass
    with jax.default_prng_impl("rbg"):
        assert jax.random.PRNGKey(0).shape == (4,)
    with jax.default_prng_impl("threefry2x32"):
        jax.random.normal(jax.random.key(1))


def test_allow_f16_reductions():
    x = jnp.ones(4, jnp.float16)
    with jax.allow_f16_reductions(False):
        with pytest.raises(ValueError, match="jax_allow_f16_reductions=False"):
            jax.lax.reduce_sum(x, (0,))
        assert float(x.sum()) == 4.0           # jnp.sum accumulates in float32, as JAX
        jax.lax.reduce_sum(jnp.ones((1, 3), jnp.float16), (0,))   # size-1 axes: allowed
    assert float(jax.lax.reduce_sum(x, (0,))) == 4.0
    assert "f32" in str(jax.make_jaxpr(jnp.sum)(x))


def test_thread_guard(monkeypatch):
    import threading
    from astjax import config_guards
    f = jax.jit(lambda x: x + 1)
    out = []

    def run():
        try:
            f(jnp.ones(2))
            out.append("ran")
        except RuntimeError as e:
            out.append(str(e))
    with jax.thread_guard(True):
        f(jnp.ones(2))
        t = threading.Thread(target=run)
        t.start()
        t.join()
        monkeypatch.setattr(config_guards, "_process_count", lambda: 2)
        t = threading.Thread(target=run)
        t.start()
        t.join()
    assert out[0] == "ran" and "thread other than" in out[1]


def test_softmax_custom_jvp():
    # values: JAX 0.10.2 (both settings)
    x = jnp.array([1., 2., 3.])
    mask = jnp.array([True, False, True])

    def f(x, where=None):
        return (jax.nn.softmax(x, where=where) * jnp.arange(3.)).sum()
    with jax.softmax_custom_jvp():
        assert "custom_jvp_call" in str(jax.make_jaxpr(jax.nn.softmax)(x))
        np.testing.assert_allclose(jax.grad(f)(x), [-0.1418171, -0.14077035, 0.28258753],
                                   rtol=1e-6)
        np.testing.assert_allclose(jax.grad(f)(x, mask), [-0.20998713, 0., 0.20998728],
                                   rtol=1e-6)
    assert "custom_jvp_call" not in str(jax.make_jaxpr(jax.nn.softmax)(x))
    np.testing.assert_allclose(jax.grad(f)(x), [-0.1418171, -0.14077038, 0.2825874], rtol=1e-6)


def test_api_util():
    # values: JAX 0.10.2's jax.api_util on the same calls
    from astjax import api_util as au
    from astjax.extend import linear_util as lu

    def f(x, y, *, z=1):
        return {"a": x + y[0], "b": (y[1], z)}
    args, kw = (1., (2., 3.)), {"z": 4.}
    leaves, tree = tree_util.tree_flatten((args, kw))
    g, out_tree = au.flatten_fun(lu.wrap_init(f), tree)
    assert g.call_wrapped(*leaves) == [3., 3., 4.]
    assert repr(out_tree()) == "PyTreeDef({'a': *, 'b': (*, *)})"
    leaves2, tree2 = tree_util.tree_flatten(args)
    g2, ot2 = au.flatten_fun_nokwargs(lu.wrap_init(lambda x, y: x * y[0]), tree2)
    assert g2.call_wrapped(*leaves2) == [2.] and repr(ot2()) == "PyTreeDef(*)"
    h, dyn = au.argnums_partial(lu.wrap_init(lambda a, b, c: a * 100 + b * 10 + c), (0, 2),
                                (1, 2, 3))
    assert dyn == (1, 3) and h.call_wrapped(*dyn) == 123
    with pytest.raises(ValueError, match="Non-hashable static"):
        au.argnums_partial(lu.wrap_init(f), 0, (1, [2]))
    assert au.donation_vector((0,), ("z",), tree) == (True, False, False, True)
    assert au.rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)
    assert au.flatten_axes("in_axes", tree2, (0, None)) == [0, None, None]
    with pytest.raises(ValueError, match="in_axes specification must be a tree prefix"):
        au.flatten_axes("in_axes", tree2, (0, None, 1))
    d = au.debug_info("jit", f, args, kw)
    assert (d.traced_for, d.func_name, d.arg_names) == ("jit", "f", ("x", "y[0]", "y[1]", "z"))
    assert au.shaped_abstractify(np.ones((2, 3), np.float32)).str_short() == "float32[2,3]"
    assert au.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]


def test_auto_pcast_off():
    # JAX 0.10.2: the same ValueError, and the same results where it runs
    from astjax.sharding import PartitionSpec as P
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    g = jax.shard_map(lambda a, b: a + b, mesh=mesh, in_specs=(P("x"), P()), out_specs=P("x"))
    x = jnp.arange(8.)
    np.testing.assert_array_equal(g(x, jnp.ones(2)), x + 1)
    with jax.auto_pcast(False):
        with pytest.raises(ValueError, match=r"Primitive add requires varying manual axes "
                                             r"to match, but got \[frozenset\(\{'x'\}\), "
                                             r"frozenset\(\)\]"):
            jax.jit(g)(x, jnp.ones(2))
        h = jax.shard_map(lambda a, b: a + jax.lax.pcast(b, "x", to="varying"), mesh=mesh,
                          in_specs=(P("x"), P()), out_specs=P("x"))
        np.testing.assert_array_equal(h(x, jnp.ones(2)), x + 1)
        k = jax.shard_map(lambda a, b: a + b, mesh=mesh, in_specs=(P("x"), P()),
                          out_specs=P("x"), check_vma=False)
        np.testing.assert_array_equal(k(x, jnp.ones(2)), x + 1)
    np.testing.assert_array_equal(jax.jit(g)(x, jnp.ones(2)), x + 1)


def test_ds():
    # values: JAX 0.10.2 (jax.ds) on the same calls
    x = jnp.arange(10)
    ds = jax.ds
    for got, want in [(x[ds(-3, 2)], [7, 8]), (x[ds(8, 4)], [6, 7, 8, 9]),
                      (x[ds(1, 3, 2)], [1, 3, 5]), (x[ds(4)], [0, 1, 2, 3]),
                      (x[ds(None)], list(range(10))),
                      (jax.jit(lambda x, i: x[ds(i, 3)])(x, 8), [7, 8, 9]),
                      (jax.jit(lambda x, i: x[ds(i, 3)])(x, -2), [7, 8, 9]),
                      (x.at[ds(2, 3)].set(0), [0, 1, 0, 0, 0, 5, 6, 7, 8, 9]),
                      (x.at[ds(8, 4)].add(100), list(range(10))),
                      (x.at[ds(-3, 2)].set(-5), list(range(10))),
                      (jax.jit(lambda x, i: x.at[ds(i, 2, 2)].set(-1))(x, 5),
                       [0, 1, 2, 3, 4, -1, 6, -1, 8, 9])]:
        np.testing.assert_array_equal(got, want)
    y = jnp.arange(24).reshape(2, 3, 4)
    assert y[..., ds(1, 2)].shape == (2, 3, 2) and y[None, ds(1, 1), 1].shape == (1, 1, 4)
    np.testing.assert_array_equal(y[0, ds(1, 2)], [[4, 5, 6, 7], [8, 9, 10, 11]])
    np.testing.assert_array_equal(jax.grad(lambda x, i: x[ds(i, 2)].sum())(jnp.arange(5.), 1),
                                  [0, 1, 1, 0, 0])
    assert repr(ds(2, 3)) == "Slice(start=2, size=3, stride=1)"


def test_new_submodules_import_as_jax():
    import subprocess
    import sys
    code = ("import astjax; astjax.install_as_jax()\n"
            "import jax.image, jax.ops, jax.monitoring, jax.api_util, jax.custom_batching, "
            "jax.dlpack, jax.lib, jax.custom_derivatives, jax.ad_checkpoint\n"
            "from jax.custom_batching import custom_vmap, sequential_vmap\n"
            "assert jax.image.resize(jax.numpy.ones((2, 2)), (3, 3), 'linear').shape == (3, 3)\n"
            "assert jax.ds(1, 2).size == 2 and jax.lib.__version__")
    subprocess.run([sys.executable, "-c", code], check=True)
