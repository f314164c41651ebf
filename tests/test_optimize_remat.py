"""`custom_vjp.defvjp(..., optimize_remat=True)` and its `remat_opt` primitive (issue
13): values, derivatives, how often the user's functions and an opaque forward kernel
run, the call equations of the staged programs and JAX's error classes, against JAX
0.10.2's stored results (`tests/oracle/record_optimize_remat.py`); and the primitive's
rules (impl, DCE, batching) directly."""
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.compat.custom_derivatives import remat_opt_p
from astjax.transforms.dce import dce_closed

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_optimize_remat import CASES, _sin_vjp, run  # noqa: E402
from oracle import compare  # noqa: E402

RECORDED = compare.load("optimize_remat")
J = types.SimpleNamespace(jax=astjax, lax=lax, jnp=jnp)


# the cases count the user's calls in a dict on purpose
pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_jax(name):
    # counts and names exactly, floats to rounding
    compare.assert_outcome(run(CASES[name], J), RECORDED["cases"][name], rtol=2e-6, atol=1e-6)


def test_every_case_recorded():
    compare.assert_recorded(RECORDED["cases"], CASES)


def test_errors_are_located():
    f = _sin_vjp(J)
    with pytest.raises(astjax.errors.AstjaxError, match="optimize_remat") as e:
        astjax.grad(astjax.grad(lambda x: f(x) * 2.0))(0.5)
    assert isinstance(e.value, ValueError) and "test_optimize_remat.py" in str(e.value)
    g = astjax.custom_vjp(lambda x: x)
    with pytest.raises(astjax.errors.AstjaxError, match="symbolic zeros") as e:
        g.defvjp(lambda x: (x, None), lambda r, c: (c,), symbolic_zeros=True,
                 optimize_remat=True)
    assert isinstance(e.value, NotImplementedError) and "test_optimize_remat.py" in str(e.value)


def _eqns(jaxpr, name):
    out = []
    for e in jaxpr.eqns:
        if e.primitive.name == name:
            out.append(e)
        for v in e.params.values():
            sub = getattr(v, "jaxpr", v)
            if hasattr(sub, "eqns"):
                out += _eqns(sub, name)
    return out


def test_grad_stages_the_forward_rule_as_one_equation():
    f = _sin_vjp(J)
    staged = astjax.make_jaxpr(astjax.grad(f))(np.float32(0.5))
    eqn, = _eqns(staged.jaxpr, "remat_opt")   # (make_jaxpr keeps both results, as JAX)
    assert str(eqn.params["fwd_jaxpr"]) == (
        "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = cos a in (c, b) }")
    closed = dce_closed(staged)   # (as before lowering)
    eqn, = _eqns(closed.jaxpr, "remat_opt")
    assert eqn.primitive is remat_opt_p
    # only the residual is read: DCE kept cos, the forward rule's primal output went
    assert str(eqn.params["fwd_jaxpr"]) == "{ lambda ; a:f32[]. let b:f32[] = cos a in (b,) }"
    assert eqn.params["num_res"] == 1
    # without the option the forward rule is inlined
    plain = _sin_vjp(J, opt=False)
    assert not _eqns(astjax.make_jaxpr(astjax.grad(plain))(np.float32(0.5)).jaxpr,
                     "remat_opt")


def test_primal_thunk_stages_fun_once_when_asked():
    counts = {}
    f = _sin_vjp(J, counts=counts)
    g = astjax.checkpoint(lambda x: f(x) * 2.0)
    v, d = astjax.value_and_grad(g)(np.float32(0.5))
    assert counts["f"] == 1 and counts["fwd"] == 1 and counts["bwd"] == 1
    np.testing.assert_allclose([v, d], [2 * np.sin(0.5), 2 * np.cos(0.5)], rtol=1e-6)


def test_remat_opt_primitive_rules():
    """impl and lowering agree; vmap of the staged equation; DCE to the primal."""
    f = _sin_vjp(J)
    closed = dce_closed(astjax.make_jaxpr(lambda x: astjax.vjp(f, x)[0])(np.float32(0.5)))
    eqn, = _eqns(closed.jaxpr, "closed_call")  # the residual is not read: the primal
    assert [e.primitive.name for e in eqn.params["call_jaxpr"].jaxpr.eqns] == ["sin"]
    x = np.linspace(-1, 1, 5).astype(np.float32)
    got = astjax.vmap(astjax.grad(lambda x: f(x) * x))(x)
    np.testing.assert_allclose(got, np.cos(x) * x + np.sin(x), rtol=1e-6)
    jit_got = astjax.jit(astjax.vmap(astjax.grad(lambda x: f(x) * x)))(x)
    np.testing.assert_allclose(jit_got, got, rtol=1e-6)
