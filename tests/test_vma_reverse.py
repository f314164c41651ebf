"""Reverse mode taken inside a `shard_map(..., check_vma=True)` body against JAX 0.10.2
(tests/oracle/record_vma_reverse.py -> vma_reverse.json): `grad`, `value_and_grad`,
`vjp`, `jacrev`, `linear_transpose` and a second-order `grad` through the
collectives, over invariant and varying operands, inside loop and branch bodies;
JAX's typed cotangents (`primitives/vma_reverse.reverse_typed`); and `lax.all_gather(...,
to='reduced')`, JAX's implicit pvary printed. Custom rules: tests/test_vma_custom.py.
Known difference, a strict xfail: the printed reverse mode (astjax prints its per-device
transposes and the correction at the boundary where JAX prints `pvary` /
`psum_invariant`)."""
import json

import numpy as np
import pytest

import astjax as jax

from oracle import record_vma_reverse as rec

EXPECTED = json.loads(rec.PATH.read_text())
CASES = rec.cases(jax)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

XFAIL = {}   # case -> a strict xfail mark: what astjax still does otherwise than JAX
#: JAX refuses, astjax differentiates with its own rule (checked against NumPy below)
OWN_RULE = {"grad_pmax": "pmax has no JVP in JAX; astjax's routes the tangent of the "
                         "device(s) holding the max"}


def _params(names):
    return [pytest.param(n, marks=XFAIL[n]) if n in XFAIL else n for n in names]


@pytest.mark.parametrize("case", _params(sorted(k for k in EXPECTED if "/" not in k
                                                and k not in OWN_RULE)))
def test_inside_a_body_as_jax(case):
    """One case (a table: tests/tiers.py samples it in CI, each case one compile)."""
    want = EXPECTED[case]
    if "error" in want:
        f, args = rec.smap(jax, CASES[case])
        with pytest.raises(Exception) as info:
            jax.jit(f)(*args)
        assert want["error"] in [c.__name__ for c in type(info.value).__mro__]
        assert (getattr(info.value, "message", None) or str(info.value)).split("\n")[0] \
            == want["message"]
        return
    f, args = rec.smap(jax, CASES[case])
    got = jax.tree_util.tree_leaves(jax.jit(f)(*args))
    assert len(got) == len(want["value"])
    for g, w in zip(got, want["value"]):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6)


def test_pmax_own_rule():
    """JAX has no JVP for pmax; astjax's, typed: the output is invariant over 'x', so
    each element's gradient is 2z on the device(s) holding the max (ties shared)."""
    assert EXPECTED["grad_pmax"]["error"] == "NotImplementedError"
    f, args = rec.smap(jax, CASES["grad_pmax"])
    sq = rec.X * rec.X
    top, bottom = sq[:2], sq[2:]
    m = np.maximum(top, bottom)
    cnt = (top == m).astype(np.float32) + (bottom == m)
    want = np.concatenate([2 * rec.X[:2] * (top == m) / cnt,
                           2 * rec.X[2:] * (bottom == m) / cnt])
    np.testing.assert_allclose(np.asarray(jax.jit(f)(*args)), want, rtol=1e-6)


@pytest.mark.xfail(strict=True, reason="the forward body is JAX's; the backward is astjax's "
                   "per-device transposes plus the boundary correction (the seed divided by "
                   "the device count, psum_invariant transposed to psum_invariant, a pvary "
                   "typing the result) where JAX seeds pvary(1.0) and transposes pvary <-> "
                   "psum_invariant")
@pytest.mark.parametrize("case", rec.PRINTED)
def test_printed_as_jax(case):
    assert rec.printed(jax, CASES[case]) == EXPECTED[f"jaxpr/{case}"]


@pytest.mark.parametrize("case", rec.PRINTED_FORWARD)
def test_printed_forward_as_jax(case):
    """JAX's implicit pvary as equations (`vma._implicit_pvary`): the operands of an
    operation varying over fewer manual axes than another's (a literal too) cast first."""
    assert rec.printed(jax, CASES[case]) == EXPECTED[f"jaxpr/{case}"]


def test_printed_body():
    """The mechanism, exactly: the seed of the output invariant over 'x' divided by its
    two devices, the transpose of psum_invariant (the per-device adjoint: a sum over the
    devices), the result typed as the input."""
    body = rec.printed(jax, CASES["grad_psum"]).split("jaxpr=")[1].split("mesh=")[0]
    assert body == """{ lambda ; c:f32[2,2]{V:(x,y)}. let
          d:f32[2,2]{V:y} = psum_invariant[axes=('x',)] c
          e:f32[]{V:y} = reduce_sum[axes=(0, 1) out_sharding=None] d
          f:f32[] = div 1.0:f32[] 2.0:f32[]
          g:f32[2,2] = broadcast_in_dim f
          h:f32[2,2] = psum_invariant[axes=('x',)] g
          i:f32[2,2]{V:(x,y)} = pvary[axes=('x', 'y')] h
        in (i,) }
      """


def test_grad_through_the_boundary_is_unchanged():
    """The gradient of a body with a psum taken from outside the shard_map."""
    np.testing.assert_allclose(rec.boundary(jax), EXPECTED["boundary/grad_psum_squared"],
                               rtol=1e-6)


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("case", sorted(k.split("/")[1] for k in EXPECTED
                                        if k.startswith("reduced/")))
def test_all_gather_reduced_as_jax(case):
    """`lax.all_gather(..., to='reduced')`: the value, its layout (reduced in the
    out_spec kept) and `jax.typeof` inside the body, or JAX's error."""
    got = rec.run_reduced(jax, rec.reduced_cases(jax)[case])
    want = EXPECTED[f"reduced/{case}"]
    if "error" in want:
        assert want["error"] in [c.__name__ for c in getattr(
            jax.errors, got.get("error", ""), Exception).__mro__] + [got.get("error")], got
        assert got["message"] == want["message"]
        return
    np.testing.assert_allclose(got.pop("value"), want["value"], rtol=1e-6)
    assert got == {k: v for k, v in want.items() if k != "value"}
