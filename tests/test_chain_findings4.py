"""Findings of the derivative-rule sweep, fourth round (tests/fuzz/reduce_rule_sweep.py
`-k solve,eigvalsh,eigh_v,svd_u,qr_r,cholesky`): derivatives of the factorizations whose
float32 bits must be JAX 0.10.2's (stored by tests/oracle/record_factorization_derivs.py
-> factorization_derivs.json)."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from jax_hosts import cpu_signature
from oracle import record_factorization_derivs as rec

STORED = json.loads(Path(rec.__file__).with_name("factorization_derivs.json").read_text())


def _check(name, transform):
    got = rec.run(jax, name, transform)
    want = STORED[f"{name}/{transform}"]
    assert len(got) == len(want), (name, transform)
    if cpu_signature() != STORED["cpu"]:
        # XLA's CPU kernels round the last bits per CPU model (JAX's own results differ
        # by an ulp between machines): bits compare only on the recording CPU's model
        g, w = (np.asarray(v, np.uint32).view(np.float32) for v in (got, want))
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=1e-5, err_msg=f"{name} {transform}")
        return
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, (name, transform, len(bad), bad[:8])


# eigh's JVP: F = integer_pow((I + w[None, :]) - w[:, None], -1) - I in JAX's order (was
# 1 / (I + (w_row - w_col)): another rounding, and a division's derivative where JAX
# differentiates integer_pow); sweep: eigvalsh grad2 66 -> 0, eigh_v 138 -> 0
@pytest.mark.parametrize("transform", ["vgrad2"])
def test_eigvalsh_second_derivative_bits(transform):
    _check("eigvalsh", transform)


@pytest.mark.parametrize("transform", ["grad", "jvp", "vgrad2"])
def test_eigh_vectors_derivative_bits(transform):
    _check("eigh_v", transform)


def test_solve_vector_second_derivative_bits():
    # solve(a, b) of a vector b is JAX's custom_linear_solve of the vector (x -> a x one
    # matrix-vector dot_general), not of the column b[:, None]; sweep: solve grad2 132 -> 0
    _check("solve", "vgrad2")


def test_svd_vectors_second_derivative_bits():
    # svd's JVP transposes s[..., None, :] once per use, as JAX's: reverse mode adds the
    # two cotangents into s's one at a time; sweep: svd_u grad2 279 -> 9
    _check("svd_u", "vgrad2")


@pytest.mark.parametrize("transform", ["grad", "jvp", "vgrad2"])
def test_complete_qr_derivative_bits(transform):
    # the trailing m - n columns of a complete QR's dQ solve (Q_nn - I)^H z = Q_pn^H from
    # lu(Q_nn - I) with JAX's trans=2 LU solve (was the LU of the transposed matrix)
    _check("qr_complete", transform)


@pytest.mark.parametrize("transform", ["value", "grad", "jvp"])
def test_expm_bits(transform):
    # the Pade numerator and denominator summed from the highest power down, as JAX's
    # (b7 A6 + b5 A4 + b3 A2 + b1 I; was from the identity up): expm's own values were 1
    # ulp off in most elements (silent); sweep: expm 539 -> 34 of 1,152 (second order)
    _check("expm", transform)


def test_matrix_power_second_derivative_bits():
    # matrix_power is a nested jit, as JAX's: reverse mode sums a's three cotangents
    # inside the call, then adds the caller's (was one flat sum: another association);
    # sweep: matrix_power grad2 50 -> 0 of 256
    _check("matrix_power", "vgrad2")


@pytest.mark.parametrize("name", ["cho_solve", "lu_solve"])
def test_scipy_factor_solves_second_derivative_bits(name):
    # scipy.linalg.cho_solve / lu_solve are nested jits, as JAX's: reverse mode sums the
    # factor's cotangents (two triangular solves) inside the call; sweep: cho_solve grad2
    # 65 -> 0, lu_solve 53 -> 0 of 320
    _check(name, "vgrad2")


def test_triangular_solve_jvp_adds_the_matrix_term_first():
    # JAX's defjvp2 order: the matrix's tangent term, then the right-hand side's; the
    # reverse pass of a second derivative accumulates cotangents in that order
    a = np.tril(np.full((3, 3), 0.5, np.float32)) + 2 * np.eye(3, dtype=np.float32)
    b = np.ones((3, 2), np.float32)
    jaxpr = jax.make_jaxpr(lambda a, b, ta, tb: jax.jvp(
        lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
        (a, b), (ta, tb))[1])(a, b, a, b).jaxpr
    adds = [e for e in jaxpr.eqns if e.primitive.name in ("add", "add_any")]
    tb = jaxpr.invars[3]
    [solve_tb] = [e for e in jaxpr.eqns if e.primitive.name == "triangular_solve" and
                  e.invars[1] is tb]
    # the last add sums (matrix term, solve of tb): tb's solve is its second operand
    assert adds[-1].invars[1] is solve_tb.outvars[0]
    assert jnp.allclose(jax.jvp(lambda b: jax.lax.linalg.triangular_solve(
        a, b, left_side=True, lower=True), (b,), (b,))[1], np.linalg.solve(a, b), rtol=1e-6)
