"""An inner `jit` kept as one `jit` equation (issue 13), against JAX 0.10.2's stored
results (`tests/oracle/record_jit_call.py`): printed jaxprs with shared `let` bindings,
StableHLO with one `func.func private` per distinct body, values and derivatives; and
the primitive's own rules (inline=True, DCE, the generic inlining of effects);
checkify enters the call's body."""
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core, lax
from astjax.compat.ad_checkpoint import print_saved_residuals
from astjax.compat.experimental import checkify
from astjax.primitives.jit_call import jit_p
from astjax.transforms.dce import dce_closed

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_jit_call import CASES  # noqa: E402
from oracle import compare  # noqa: E402

RECORDED = compare.load("jit_call")["cases"]
J = types.SimpleNamespace(jax=astjax, lax=lax, jnp=jnp, checkify=checkify,
                          print_saved_residuals=print_saved_residuals)

TEXTS = [(c, k) for c in sorted(RECORDED) for k in sorted(RECORDED[c])
         if isinstance(RECORDED[c][k], str)]
VALUES = [(c, k) for c in sorted(RECORDED) for k in sorted(RECORDED[c])
          if not isinstance(RECORDED[c][k], str)]


@pytest.fixture(scope="module")
def results():
    return {name: case(J) for name, case in CASES.items()}


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(CASES)


@pytest.mark.parametrize("case,key", TEXTS)
def test_text_as_jax(results, case, key):
    assert results[case][key] == RECORDED[case][key]


@pytest.mark.parametrize("case,key", VALUES)
def test_values_as_jax(results, case, key):
    np.testing.assert_allclose(results[case][key], RECORDED[case][key], rtol=2e-6, atol=1e-6)


def _g(x):
    return jnp.sin(x) * 2


def _prims(closed):
    return [e.primitive.name for e in closed.jaxpr.eqns]


def test_inline_true_inlines():
    g_kept, g_inlined = astjax.jit(_g), astjax.jit(_g, inline=True)
    kept = astjax.make_jaxpr(lambda x: g_kept(x) + 1)(1.0)
    inlined = astjax.make_jaxpr(lambda x: g_inlined(x) + 1)(1.0)
    assert _prims(kept) == ["jit", "add"]
    assert _prims(inlined) == ["sin", "mul", "add"]
    core.check_jaxpr(kept)
    assert astjax.jit(lambda x: g_kept(x) + 1)(0.5) == astjax.jit(lambda x: g_inlined(x) + 1)(0.5)


def _two(x):
    return jnp.sin(x), jnp.cos(x) * 3


def test_dce_prunes_the_body():
    """make_jaxpr keeps an unused result of the inner call (as JAX's); DCE (before
    lowering) takes it out of the body, and the call stays one equation."""
    inner = astjax.jit(_two)
    staged = astjax.make_jaxpr(lambda x: inner(x)[1])(1.0)
    assert len(staged.jaxpr.eqns[0].outvars) == 2
    closed = dce_closed(staged)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is jit_p and len(eqn.outvars) == 1
    assert _prims(eqn.params["jaxpr"]) == ["cos", "mul"]
    pruned = dce_closed(astjax.make_jaxpr(lambda x: inner(x)[0] * 0 + 1.0)(1.0))
    core.check_jaxpr(pruned)


def _printing(x):
    astjax.debug.print("x={x}", x=x)
    return x * 2


def test_side_effects_keep_the_call():
    """A body with a side effect is one equation with that effect: DCE keeps the call
    whose results are unused, and its body's effect."""
    inner = astjax.jit(_printing)
    closed = astjax.make_jaxpr(lambda x: inner(x) * 0 + 1)(1.0)
    assert _prims(closed) == ["jit", "mul", "add"]
    pruned = dce_closed(astjax.make_jaxpr(lambda x: (inner(x), 1.0)[1])(1.0))
    (eqn,) = pruned.jaxpr.eqns
    assert eqn.primitive is jit_p and eqn.outvars == []
    assert _prims(eqn.params["jaxpr"]) == ["debug_print"]


def _uses_g_twice(x):
    g = astjax.jit(_g)
    return g(x) + g(x + 1)


def test_source_prints_the_body_inline():
    """`astjax.source` prints the call's body inline; the program runs the same."""
    text = astjax.source(_uses_g_twice, 0.5)
    assert text.count("lax.sin(") == 2 and "jit" in text
    np.testing.assert_allclose(float(astjax.jit(_uses_g_twice)(0.5)),
                               2 * np.sin(0.5) + 2 * np.sin(1.5), rtol=1e-6)


def test_scan_and_cond_bodies_keep_the_call():
    """An inner jit in a loop body: one equation in the body; values and derivatives
    through the loop as the inlined program's."""
    g = astjax.jit(_g)

    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: g(c) + i, x)

    (loop,) = astjax.make_jaxpr(f)(0.3).jaxpr.eqns
    assert _prims(loop.params["jaxpr"]).count("jit") == 1

    def ref(x):
        for i in range(3):
            x = np.sin(x) * 2 + i
        return x
    np.testing.assert_allclose(float(astjax.jit(f)(0.3)), ref(0.3), rtol=1e-6)
    eps = 1e-3
    num = (ref(0.3 + eps) - ref(0.3 - eps)) / (2 * eps)
    np.testing.assert_allclose(float(astjax.grad(f)(0.3)), num, rtol=1e-3)
    np.testing.assert_allclose(np.asarray(astjax.vmap(f)(jnp.array([0.1, 0.3]))),
                               [ref(0.1), ref(0.3)], rtol=1e-6)


def _psum_x(v):
    return lax.psum(v, "x")


@pytest.mark.skipif(len(astjax.devices()) < 2, reason="needs 2 devices (conftest sets 4)")
def test_shard_map_follows_the_body_for_varying_axes():
    """A `psum` inside an inner jit makes its result invariant over the axis: a
    replicated out_spec is accepted (check_vma), as in JAX, and the value is the sum."""
    mesh = astjax.make_mesh((2,), ("x",), axis_types=(astjax.sharding.AxisType.Auto,))
    P = astjax.sharding.PartitionSpec
    total = astjax.jit(_psum_x)
    f = astjax.jit(astjax.shard_map(lambda v: total(v), mesh=mesh, in_specs=P("x"),
                                    out_specs=P()))
    a = np.arange(4.0, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(f(a)), a[:2] + a[2:])
