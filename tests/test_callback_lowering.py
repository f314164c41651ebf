"""Host callbacks' custom calls lowered as JAX 0.10.2 lowers them, and run by XLA in
that form (tests/oracle/record_callback_lowering.py -> callback_lowering.json): the
typed-FFI attributes in `mhlo.backend_config`, the maximal mesh of device 0 (empty
mesh in a `shard_map` body, GSPMD's `{maximal device=0}` with Shardy off); and the
result of a callback under `set_mesh`, on the mesh's first device (JAX's
`GSPMDSharding`), which the next partitioned program refuses as JAX does; a debug
print in a partially manual `shard_map` (JAX's nested map), other callbacks refused."""
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import io_callback

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_callback_lowering import CASES  # noqa: E402
from oracle import compare  # noqa: E402

RECORDED = compare.load("callback_lowering")["cases"]
J = types.SimpleNamespace(jax=astjax, jnp=jnp, P=astjax.sharding.PartitionSpec,
                          io_callback=io_callback)
KNOWN: dict = {}   # (case, key) -> why astjax's text still differs (none today)
TEXTS = [(c, k) for c in sorted(RECORDED) for k in sorted(RECORDED[c])
         if isinstance(RECORDED[c][k], str)]
VALUES = [(c, k) for c in sorted(RECORDED) for k in sorted(RECORDED[c])
          if not isinstance(RECORDED[c][k], str)]

pytestmark = pytest.mark.skipif(len(astjax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def results():
    return {name: case(J) for name, case in CASES.items()}


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(CASES)


@pytest.mark.parametrize("case,key", [
    t if t not in KNOWN else pytest.param(*t, marks=pytest.mark.xfail(strict=True,
                                                                      reason=KNOWN[t]))
    for t in TEXTS])
def test_text_as_jax(results, case, key):
    assert results[case][key] == RECORDED[case][key]


@pytest.mark.parametrize("case,key", VALUES)
def test_values_as_jax(results, case, key):
    if key == "printed":
        assert results[case][key] == RECORDED[case][key]
    else:
        compare.assert_close(results[case][key], RECORDED[case][key], rtol=1e-6, atol=1e-6)


def test_callback_result_under_set_mesh_is_on_the_first_device():
    mesh = astjax.make_mesh((2,), ("x",), devices=astjax.devices()[:2],
                            axis_types=(astjax.sharding.AxisType.Auto,))
    f = astjax.jit(lambda a: astjax.pure_callback(
        lambda v: np.asarray(v) * 2, astjax.ShapeDtypeStruct(a.shape, a.dtype), a))
    with astjax.set_mesh(mesh):
        r = f(jnp.ones(3))
        eager = astjax.pure_callback(lambda v: np.asarray(v) * 2,
                                     astjax.ShapeDtypeStruct((3,), jnp.float32), jnp.ones(3))
        with pytest.raises(TypeError, match="Cannot convert GSPMDSharding"):
            astjax.jit(lambda a: a + 1)(r)
    for x in (r, eager):
        s = x.sharding
        assert repr(s) == "GSPMDSharding({maximal device=0}, memory_kind=device)"
        assert s.device_set == set(mesh.devices.flat) and s.is_fully_replicated
        assert [np.asarray(sh.data).tolist() for sh in x.addressable_shards] == \
            [[2.0] * 3, [0.0] * 3]
        assert np.asarray(x).tolist() == [2.0] * 3


def test_several_platforms_refused_as_jax():
    def f(x):
        astjax.debug.print("x={}", x)
        return x + 1
    with pytest.raises(NotImplementedError, match="multi-platform lowering for python_callback"):
        astjax.jit(f).trace(1.0).lower(lowering_platforms=("cpu", "cuda"))


def test_io_callback_in_partially_manual_shard_map_refused_as_jax():
    mesh = astjax.make_mesh((2, 2), ("x", "y"), axis_types=(astjax.sharding.AxisType.Auto,) * 2)

    def body(a):
        io_callback(lambda v: None, None, a)
        return a * 2
    f = astjax.jit(astjax.shard_map(body, mesh=mesh, in_specs=astjax.P("x"),
                                    out_specs=astjax.P("x"), axis_names={"x"}))
    with pytest.raises(NotImplementedError, match="partitioned manually"):
        f(jnp.arange(4.0))
