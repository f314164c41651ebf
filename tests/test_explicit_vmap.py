"""`vmap` under `set_mesh` of an Explicit mesh as JAX 0.10.2 types it
(tests/oracle/record_explicit_vmap.py -> explicit_vmap.json): the mapped function is
typed as one value of the batch (its arguments without their mapped dimension), so
`jax.typeof` inside and JAX's errors there (a `scan` over an axis sharded in that
view: "0th dimension of all xs should be replicated. Got P('x',)") are JAX's, located
at the user's line, before any batching rule; the values batching rules make raise
nothing. A JAX 0.10.2 failure astjax does not copy is a strict xfail."""
import json
import warnings

import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from oracle import record_explicit_vmap as rec
from oracle_compare import four_devices, with_xfails

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = four_devices(jax)

_JAX_SCAN_BATCHING = pytest.mark.xfail(strict=True, reason=(
    "JAX 0.10.2's scan batching rule raises a ValueError naming an empty mesh ('Resource "
    "axis: x of P('x',) is not found in mesh: ()') for a scalar carry beside xs mapped "
    "over a sharded axis; astjax computes the values (the unbatched function is typed fine)"))


_XFAIL = {"scan_carry_beside_sharded_batch": _JAX_SCAN_BATCHING,
          "scan_free_rows": _JAX_SCAN_BATCHING}


@pytest.fixture(scope="module")
def results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: rec.run_case(jax, jnp, name) for name in EXPECTED}


@pytest.mark.parametrize("name", with_xfails(sorted(EXPECTED), _XFAIL))
def test_types_and_errors_as_jax(results, name):
    rec.control.assert_as_recorded(jax, results[name], EXPECTED[name])


_BATCHED_TEXT = pytest.mark.xfail(strict=True, reason=(
    "JAX's batching rules give the values they make (a broadcast constant, a batched "
    "cond's selections) the batch's layout and constrain them; astjax leaves them untyped "
    "(no check can fail on them) and batches a cond with a batched predicate differently"))


@pytest.mark.parametrize("name", with_xfails(
    [n for n in sorted(EXPECTED) if "constraints" in EXPECTED[n]],
    {"where_constant": _BATCHED_TEXT, "cond_made_branch": _BATCHED_TEXT}))
def test_laid_out_constraints_as_jax(results, name):
    assert results[name]["constraints"] == EXPECTED[name]["constraints"]


def test_scan_error_is_located_and_a_value_error():
    """The scan's error is JAX's class (ValueError) at the user's `lax.scan` line."""
    mesh = rec.control.mesh_of(jax)
    a = rec.control.arrays(jax, mesh)["x"]
    fn = rec.programs(jax, jnp, None)["scan_in_axes_1"][0]
    with jax.set_mesh(mesh), pytest.raises(ValueError) as info:
        jax.jit(fn)(a)
    e = info.value
    assert isinstance(e, AstjaxError) and e.loc is not None
    assert e.loc.file == rec.__file__ and "lax.scan(" in str(e)
