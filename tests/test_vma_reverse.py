"""Reverse mode taken inside a `shard_map(..., check_vma=True)` body against JAX 0.10.2
(tests/oracle/record_vma_reverse.py -> vma_reverse.json): `grad`, `value_and_grad`,
`vjp`, `jacrev`, `linear_transpose` and a second-order `grad` through the
collectives, over invariant and varying operands, inside loop and branch bodies: the
values, and the printed jaxprs (JAX's typed backward pass: `pvary` <->
`psum_invariant`, grad's seed `pvary(1.0)`; `primitives/vma_reverse.typed_backward`;
the cases still printed otherwise, for reasons other than manual-axis types, are
strict xfails in PRINTED_XFAIL); and `lax.all_gather(..., to='reduced')`. Custom
rules: tests/test_vma_custom.py."""
import json

import numpy as np
import pytest

import astjax as jax

from oracle import record_vma_reverse as rec
from oracle_compare import with_xfails

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


def _differs(why):
    return pytest.mark.xfail(strict=True, reason=why)


# (each reason below holds outside shard_map as well: none is about manual-axis types)
_CLEANUP = _differs("astjax's cleanup after AD (DESIGN.md: DCE, CSE, x*1) drops the "
                    "multiplication by the seed 1.0 JAX keeps; so does make_jaxpr(grad(lambda"
                    " z: (z * z).sum())) outside shard_map")
_LOOP = _differs("a Python `for` over a static range is a scan by design (DESIGN.md, "
                 "promise 1); JAX traces Python, so every loop unrolls there")
_JACREV = _differs("astjax's jacrev / jacfwd scan over the standard basis (ad_api._Jac, "
                   "outside shard_map too) where JAX vmaps the pullback over it")
#: case -> why astjax's printed jaxpr still differs from JAX's (each a strict xfail)
PRINTED_XFAIL = {
    "grad_fully_invariant": _CLEANUP, "grad_partial_manual": _CLEANUP,
    "grad_in_python_loop": _LOOP, "grad_of_python_loop_rows": _LOOP,
    "jacrev_psum": _JACREV, "jacrev_invariant_input": _JACREV,
    "grad_second_order": _differs("JAX keeps the inner grad's unused forward integer_pow "
                                  "and a second mul 2.0 (astjax's DCE and CSE after AD "
                                  "drop them, DESIGN.md)"),
    "vmap_of_grad": _differs("JAX's batched reduce_sum / broadcast_in_dim params hold "
                             "np.int64, and it broadcasts to [1,2] then multiplies"),
}


@pytest.mark.parametrize("case", with_xfails(sorted(k.split("/")[1] for k in EXPECTED
                                                    if k.startswith("jaxpr/")), PRINTED_XFAIL))
def test_printed_as_jax(case):
    """`make_jaxpr` of the shard_map: the forward body with JAX's implicit `pvary`s
    (`vma._implicit_pvary`: the operands of an operation varying over fewer manual axes
    than another's cast first), the backward pass with JAX's typed transposes (`pvary`
    <-> `psum_invariant`, grad's seed `pvary(1.0)` where the output varies: no
    correction at the boundary, `vma_reverse.typed_backward`); `check_vma=False`: the
    per-device transposes, as JAX's (grad_psum_unchecked)."""
    assert rec.printed(jax, CASES[case]) == EXPECTED[f"jaxpr/{case}"]


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


#: `make_jaxpr(grad(f))` of a slice (unit and strided) printed by JAX 0.10.2
SLICE_GRADS = {
    "strided": """{ lambda ; a:f32[2,3]. let
    b:f32[1,2] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=(1, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[1,2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = pad[
      padding_config=((1, np.int64(0), np.int64(0)), (0, np.int64(0), np.int64(1)))
    ] c 0.0:f32[]
  in (d,) }""",
    "unit": """{ lambda ; a:f32[2,3]. let
    b:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(1, 0) strides=None] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[1,2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = pad[padding_config=((1, np.int64(0), 0), (0, np.int64(1), 0))] c
      0.0:f32[]
  in (d,) }"""}


@pytest.mark.parametrize("case", sorted(SLICE_GRADS))
def test_slice_transpose_pads_as_jax(case):
    """slice's transpose pads with JAX's params: NumPy integers where JAX computes them
    with NumPy (the high padding; the interior too when strided), outside a body too."""
    idx = {"strided": (slice(1, None), slice(None, None, 2)),
           "unit": (slice(1, None), slice(None, 2))}[case]
    got = jax.make_jaxpr(lambda x: jax.grad(lambda z: z[idx].sum())(x))(
        np.ones((2, 3), np.float32))
    assert str(got) == SLICE_GRADS[case]
