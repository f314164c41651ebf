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


def test_lazy_submodules():
    import subprocess
    import sys
    code = ("import sys, astjax; assert 'astjax.image' not in sys.modules; "
            "astjax.image; astjax.dlpack; astjax.custom_derivatives; astjax.ad_checkpoint; "
            "assert 'astjax.image' in sys.modules; assert 'image' in dir(astjax)")
    subprocess.run([sys.executable, "-c", code], check=True)
