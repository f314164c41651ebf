"""`jit(device=, backend=, compiler_options=)` against JAX 0.10.2's recorded outcomes
(`tests/oracle/jit_options.json`, from `record_jit_options.py`, on 4 CPU devices):
where the program runs, whether results are committed, the DeprecationWarning, JAX's
errors for conflicting options, and XLA's own errors for bad compiler options."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError, JaxRuntimeError

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_jit_options import SCENARIOS, _named, outcome  # noqa: E402
from oracle import compare  # noqa: E402

RECORDED = compare.load("jit_options")
pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")
_CLASSES = {"ValueError": ValueError, "TypeError": TypeError, "RuntimeError": RuntimeError,
            "JaxRuntimeError": JaxRuntimeError}


def _put(x, d):
    return jax.device_put(x, d)


_put.single = jax.sharding.SingleDeviceSharding
_put.named = _named(jax.sharding.NamedSharding, jax.sharding.Mesh, jax.sharding.PartitionSpec)


def _run(fn):
    """The scenario on astjax: `outcome`'s record, plus the exception itself."""
    caught = []

    def thunk():
        try:
            return fn(jax.jit, _put, jax.devices(), np.float32(3.0))
        except Exception as e:
            caught.append(e)
            raise
    return outcome(thunk), (caught[0] if caught else None)


def test_all_scenarios_recorded():
    compare.assert_recorded(RECORDED, SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_as_jax(name):
    want = RECORDED[name]
    got, err = _run(SCENARIOS[name])
    assert got["warnings"] == want["warnings"]
    if "raises" in want:
        assert isinstance(err, _CLASSES[want["raises"]]), got
        message = err.message if isinstance(err, AstjaxError) else str(err).split("\n")[0]
        assert message == want["message"]
    else:
        assert {k: got.get(k) for k in ("devices", "committed", "value")} == \
            {k: want[k] for k in ("devices", "committed", "value")}


def test_conflicts_located_at_the_jit_call():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ValueError) as info:
            jax.jit(lambda x: x, device=jax.devices()[1], backend="cpu")
    assert isinstance(info.value, AstjaxError)
    assert f"{Path(__file__).name}:" in str(info.value).splitlines()[0]


def test_compiler_options_are_part_of_the_compile_key():
    """The same program with and without options: two compilations (a bad option
    after a good run still reaches XLA)."""
    def g(x):
        return x + 1.0
    assert float(jax.jit(g)(1.0)) == 2.0
    with pytest.raises(JaxRuntimeError, match="No such compile option"):
        jax.jit(g, compiler_options={"xla_not_an_option": 1})(1.0)
    assert float(jax.jit(g, compiler_options={"xla_cpu_enable_fast_math": False})(1.0)) == 2.0


def test_compiler_options_on_a_nested_jit():
    inner = jax.jit(lambda x: x * 2.0, compiler_options={"xla_cpu_enable_fast_math": True})

    def outer(x):
        return inner(x) + 1.0
    with pytest.raises(ValueError, match="`compiler_options` can only be passed to "
                                         "top-level `jax.jit`") as info:
        jax.jit(outer)(1.0)
    assert isinstance(info.value, AstjaxError)
    assert "return inner(x) + 1.0" in str(info.value)


def test_device_results_stay_on_the_device_across_calls():
    d = jax.devices()[3]
    with pytest.warns(DeprecationWarning, match="backend and device argument on jit"):
        h = jax.jit(lambda x: x * 3.0, device=d)
    for _ in range(3):
        y = h(np.ones(2, np.float32))
        assert y.devices() == {d} and y.committed


def _mesh_sharding():
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec
    return NamedSharding(Mesh(np.array(jax.devices()[:4]), ("x",)), PartitionSpec("x"))


def test_sharded_compiler_options_reach_xla_and_key_the_cache():
    """in_shardings + compiler_options (JAX runs both): the options go to the compile
    of the partitioned executable; the same program with other options is another
    jit cache entry and another compilation."""
    s = _mesh_sharding()
    x = np.arange(8, dtype=np.float32)

    def g(v):
        return v * 3.0 + 1.0
    plain = jax.jit(g, in_shardings=s, out_shardings=s)
    y = plain(x)
    np.testing.assert_allclose(np.asarray(y), x * 3.0 + 1.0)
    assert y.sharding == s
    fast = jax.jit(g, in_shardings=s, out_shardings=s,
                   compiler_options={"xla_cpu_enable_fast_math": True})
    np.testing.assert_allclose(np.asarray(fast(x)), x * 3.0 + 1.0)
    # the options are in the entry that compiled it, the plain jit's entry has none
    assert fast.lower(x)._entry.compiler_options == (("xla_cpu_enable_fast_math", True),)
    assert plain.lower(x)._entry.compiler_options == ()
    # a bad option after good runs still reaches XLA (not served from a cache)
    with pytest.raises(JaxRuntimeError, match="No such compile option: 'xla_not_an_option'"):
        jax.jit(g, in_shardings=s, out_shardings=s,
                compiler_options={"xla_not_an_option": True})(x)


def test_build_options_are_part_of_the_compile_cache_key():
    """Two compilations of one module text that differ only in a build option
    (`exec_time_optimization_effort`) are two executables, not one cache hit."""
    from astjax.codegen import compile_cache

    def h(v):
        return v * 5.0 - 2.0
    x = np.arange(8, dtype=np.float32)
    for kw in ({}, {"in_shardings": _mesh_sharding()}):
        jax.jit(h, **kw)(x)
        hits = compile_cache.stats["memory_hits"]
        out = jax.jit(h, compiler_options={"exec_time_optimization_effort": -0.5}, **kw)(x)
        np.testing.assert_allclose(np.asarray(out), x * 5.0 - 2.0)
        assert compile_cache.stats["memory_hits"] == hits
