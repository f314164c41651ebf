"""`lax.linalg.symmetric_product_p`, `cholesky_update_p`,
`lu_pivots_to_permutation_p` and `tridiagonal_solve(perturb_singular=True)`: the
program in tests/oracle/record_linalg_prims.py against JAX 0.10.2's stored values
(results, derivatives, vmap, jaxpr and error classes), plus what astjax adds (vmap
of cholesky_update, which JAX refuses)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_linalg_prims  # noqa: E402
from oracle import compare  # noqa: E402

EXPECTED = compare.load("linalg_prims")


@pytest.fixture(scope="module")
def result():
    return record_linalg_prims.run(astjax, jnp, lax)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(result, name):
    got, want = result[name], EXPECTED[name]
    if isinstance(want, (str, dict)) or name.startswith("l2p"):
        assert got == want
    elif name == "perturbed_grad":
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=2e-5, atol=1e-5, equal_nan=True, err_msg=name)


def test_perturbed_reference_is_close_to_kernel():
    """The NumPy reference (impl) of the perturbed solve agrees with jaxlib's kernel
    on the singular systems, up to the perturbation's size."""
    from astjax.primitives.linalg import tridiagonal_solve_p
    x = record_linalg_prims._inputs()
    for name in ("tri", "inverse_iteration", "zero"):
        ref = tridiagonal_solve_p.impl(*x[name], perturb_singular=True)
        np.testing.assert_allclose(ref, np.asarray(EXPECTED[f"perturbed_{name}"]), rtol=1e-3)


def test_cholesky_update_batches():
    x = record_linalg_prims._inputs()
    r, w = x["r"], x["w"]
    got = astjax.vmap(lax.linalg.cholesky_update)(np.stack([r, r]), np.stack([w, 0 * w]))
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(EXPECTED["cholesky_update"]),
                               rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(got[1]), r, rtol=2e-5, atol=1e-5)


def test_new_primitives_are_lax_linalg_objects():
    L = lax.linalg
    for p in (L.symmetric_product_p, L.cholesky_update_p, L.lu_pivots_to_permutation_p):
        assert p is astjax.core.primitives[p.name]
