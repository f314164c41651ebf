"""`jax.experimental.checkify` on astjax (astjax/compat/experimental/checkify.py):
the programs of tests/oracle/record_checkify.py against JAX 0.10.2's stored messages
and outputs, plus the eager / not-functionalized / error-object behaviour."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.compat.experimental import checkify

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_checkify  # noqa: E402
from oracle import compare  # noqa: E402

EXPECTED = compare.load("checkify")


@pytest.fixture(scope="module")
def result():
    return record_checkify.run(astjax, jnp, lax, checkify)


def _same(got, want):
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            _same(g, w) for g, w in zip(got, want))
    if isinstance(want, float):
        return isinstance(got, (int, float)) and (
            (math.isnan(want) and math.isnan(got)) or math.isclose(got, want, rel_tol=1e-6))
    return got == want


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(result, name):
    assert _same(result[name], EXPECTED[name]), (result[name], EXPECTED[name])


def test_eager_check_raises():
    with pytest.raises(checkify.JaxRuntimeError, match="eager 1"):
        checkify.check(False, "eager {x}", x=jnp.int32(1))
    checkify.check(True, "fine")


def test_format_arguments_must_be_arrays():
    with pytest.raises(TypeError, match="PyTrees of arrays"):
        checkify.check(False, "eager {x}", x=1)


def pos(x):
    checkify.check(x > 0, "pos {}", x)
    return x


def test_not_functionalized():
    with pytest.raises(ValueError, match="not functionalized"):
        astjax.jit(pos)(1.0)


def test_error_object():
    err, out = checkify.checkify(pos)(jnp.float32(-2.0))
    assert isinstance(err, checkify.Error) and str(err) == "Error(pos -2.0 (`check` failed))"
    with pytest.raises(checkify.JaxRuntimeError, match="pos -2.0"):
        err.throw()
    assert isinstance(checkify.JaxRuntimeError("x"), ValueError)
    ok, _ = checkify.checkify(pos)(jnp.float32(2.0))
    ok.throw()
    assert ok.get() is None and ok.get_exception() is None


def rethrow(x):
    err, y = checkify.checkify(pos)(x)
    checkify.check_error(err)
    return y + 1


def test_check_error_crosses_checkify():
    err, out = checkify.checkify(rethrow)(jnp.float32(-4.0))
    assert err.get() == "pos -4.0 (`check` failed)"
    with pytest.raises(checkify.JaxRuntimeError):
        checkify.check_error(err)


def debug_only(x):
    checkify.debug_check(x > 0, "debug {}", x)
    return x * 3


def test_debug_check():
    np.testing.assert_allclose(astjax.jit(debug_only)(jnp.float32(-1.0)), -3.0)
    err, _ = checkify.checkify(debug_only)(jnp.float32(-1.0))
    assert err.get() == "debug -1.0 (`check` failed)"


def test_errors_argument_is_checked():
    with pytest.raises(TypeError):
        checkify.checkify(pos, errors=frozenset({ValueError}))


def test_src_module_serves_the_same_names():
    from astjax.compat._src import checkify as src
    assert src.checkify is checkify.checkify and src.Error is checkify.Error


def test_failure_messages_format_arrays_as_jax():
    # chex's assert_tree_all_finite formats a dict of the failing leaves: JAX's message
    # shows them as Arrays (`Array(-2., dtype=float32)`), not NumPy arrays; texts from
    # JAX 0.10.2 (the same program)
    def f(x):
        checkify.check(jnp.all(x > 0), "bad {x} {d}", x=x, d={"b": x * 2})
        return x
    x = jnp.array([1.0, -1.0])
    err, _ = checkify.checkify(astjax.jit(f))(x)
    assert err.get() == "bad [ 1. -1.] {'b': Array([ 2., -2.], dtype=float32)} (`check` failed)"
    err, _ = checkify.checkify(astjax.vmap(f))(x)
    assert err.get() == "bad -1.0 {'b': Array(-2., dtype=float32)} (`check` failed)"
    with pytest.raises(checkify.JaxRuntimeError) as info:
        f(x)
    assert str(info.value) == "bad [ 1. -1.] {'b': Array([ 2., -2.], dtype=float32)} (`check` failed)"


def test_typed_keys_in_a_failing_check_format_as_jax():
    # chex's assert_trees_all_equal on trees with keys: the keys are formatting values
    def f(k):
        checkify.check(jnp.array(False), "k {} {}", k, {"a": k})
        return 1.0
    k = astjax.random.split(astjax.random.key(1))
    text = ("[[ 507451445 1853169794]\n [1948878966 4237131848]]")
    want = (f"k Array((2,), dtype=key<fry>) overlaying:\n{text} {{'a': Array((2,), "
            f"dtype=key<fry>) overlaying:\n{text}}} (`check` failed)")   # JAX 0.10.2's
    err, _ = checkify.checkify(astjax.jit(f))(k)
    assert err.get() == want
    with pytest.raises(checkify.JaxRuntimeError, match="overlaying"):
        f(k)


def _positive_log(x):
    checkify.check(jnp.all(x > 0), "bad {x}", x=x)
    return jnp.log(x)


def _mapped_checkified():
    from astjax.sharding import PartitionSpec as P
    mesh = astjax.make_mesh((4,), ("i",), axis_types=(astjax.sharding.AxisType.Auto,))
    smap = astjax.shard_map(_positive_log, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    return [checkify.checkify(astjax.pmap(_positive_log)),
            checkify.checkify(astjax.jit(smap)),
            checkify.checkify(smap, errors=checkify.all_checks)]


def test_checks_inside_pmap_and_shard_map_bodies_are_functionalized():
    # chexify of a pmapped function (chex's asserts_chexify_test): the body's checks were
    # left unfunctionalized (JAX's "not functionalized" ValueError at lowering)
    x = jnp.array([1.0, -1.0, 2.0, -3.0])
    for checked in _mapped_checkified():
        err, out = checked(x)
        assert err.get() is not None and "bad" in err.get() and "-1." in err.get()
        np.testing.assert_allclose(np.asarray(out)[[0, 2]], np.log([1.0, 2.0]), rtol=1e-6)
        err, _ = checked(jnp.abs(x))
        assert err.get() is None


def test_checks_inside_pmap_report_every_device_as_jax():
    err, _ = _mapped_checkified()[0](jnp.array([1.0, -1.0, 2.0, -3.0]))
    assert err.get() == ("at mapped index 1: bad -1.0 (`check` failed)\n"
                         "at mapped index 3: bad -3.0 (`check` failed)")   # JAX 0.10.2's
