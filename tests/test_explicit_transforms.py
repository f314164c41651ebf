"""Values made from no operand through each transformation under `set_mesh` of an
Explicit mesh, as JAX 0.10.2 types them (tests/oracle/record_explicit_transforms.py
-> explicit_transforms.json): a made matrix contracted with a laid-out argument under
`jvp`, `grad`, `vmap`, an inner `jit`, `scan` / `cond` bodies and `checkpoint`. The
made value is typed replicated wherever a transformation re-stages it (its equation
carries what decides its type: `primitives/untyped_made.py`), so the contraction's
printed type names the mesh as JAX's does; a backward `dot_general` is typed from its
forward one in another body (a reverse `scan`'s, a transposed inner `jit`'s). The
printed types that still differ for a reason other than the made value's are strict
xfails."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_control as control
from oracle import record_explicit_transforms as rec
from oracle_compare import four_devices, run_recorded

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = four_devices(jax)

_STRUCTURE = {
    "vmap_cond_body": "astjax batches a cond with a batched predicate into a select of both "
                      "branches' values computed unbatched first (f32[4,3], i32[4] untyped); "
                      "JAX's batched branches are typed",
    "vmap_grad": "JAX's batched transpose of the reduction keeps f32[1,3] / f32[3] "
                 "intermediates astjax's batching does not make",
}


@pytest.fixture(scope="module")
def results():
    return run_recorded(rec, jax, jnp, EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_results_as_jax(results, name):
    """The results' types and values are JAX's."""
    control.assert_as_recorded(jax, dict(results[name], inner=[]), dict(EXPECTED[name],
                                                                        inner=[]))
    assert results[name].get("eager_out") == EXPECTED[name].get("eager_out")


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_STRUCTURE[n]))
    if n in _STRUCTURE else n for n in sorted(EXPECTED)])
def test_printed_types_as_jax(results, name):
    """The types `make_jaxpr` prints are JAX's (the contraction with the made value
    `f32[4@x,3]`, never an untyped `f32[4,3]`)."""
    assert results[name]["types"] == EXPECTED[name]["types"]
