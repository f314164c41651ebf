"""Derivatives of the scatter family where indices repeat, fall out of bounds or are
promised unique, as jax 0.10.2's rules give them. astjax's `scatter` JVP was linear,
so its transpose handed the cotangent to every duplicate while the value kept one
(`grad` of `x.at[[1, 1]].set(u)` was [1, 1] where JAX's is [0, 1]). Each case's
Jacobian (outputs x [operand | updates], row-major) and its `vmap(grad)` second row
were recorded with jax 0.10.2 (`jacfwd` and `jacrev` agree there); `grad` and
`jit(grad)` are checked as W @ J, W the cotangent weights."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

X = np.array([1., 5., 3., 0.], np.float32)
W = np.array([1., 2., 3., 4.], np.float32)
U = np.array([2., 7., 4.], np.float32)
U_TIE = np.array([5., 5., -1.], np.float32)   # ties the operand's 5 at index 1
IDX = {"rep": [1, 1, 3], "uniq": [2, 0, 3], "oob": [1, 7, 1], "neg": [-1, 1, 1]}
DN = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
MODES = {"clip": dict(mode="clip"), "pib": dict(mode="promise_in_bounds"),
         "u": dict(unique_indices=True)}


def _case(name):
    """(f(x, u), u) for a case name: at_<kind>_<idx>[_tie | _oob_clip | _uniqflag] on
    `x.at[]`, lax_<scatter op>_<idx>[_<mode>] on `lax`."""
    parts = name.split("_")
    u = U_TIE if parts[-1] == "tie" else U
    if parts[0] == "at":
        kind, key = parts[1], parts[2]
        kw = {"clip": dict(mode="clip"), "uniqflag": dict(unique_indices=True)}.get(parts[-1], {})
        i = np.array(IDX["uniq" if key == "uniqflag" else key])
        return (lambda x, u: getattr(jnp.asarray(x).at[i], kind)(u, **kw)), u
    op = "_".join(p for p in parts[1:] if p not in IDX and p not in MODES and p != "tie")
    key = next(p for p in parts if p in IDX) if parts[-1] != "u" else "uniq"
    i = np.array(IDX[key]).reshape(-1, 1)
    kw = MODES.get(parts[-1], {})
    return (lambda x, u: getattr(lax, op)(x, i, u, DN, **kw)), u


# jax 0.10.2
JAX_JACOBIANS = {
    "at_set_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "at_set_uniq": ([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 2, 0, 0, 3, 1, 4]),
    "at_set_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 0, 0, 2]),
    "at_set_oob_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0],
        [1, 0, 3, 0, 0, 4, 2]),
    "at_set_uniqflag": ([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 2, 0, 0, 3, 1, 4]),
    "at_set_neg": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0],
        [1, 0, 3, 0, 4, 0, 2]),
    "at_add_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        [1, 2, 3, 4, 2, 2, 4]),
    "at_add_uniq": ([1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        [1, 2, 3, 4, 3, 1, 4]),
    "at_add_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 2, 3, 4, 2, 0, 2]),
    "at_add_oob_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0],
        [1, 2, 3, 4, 2, 4, 2]),
    "at_add_uniqflag": ([1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        [1, 2, 3, 4, 3, 1, 4]),
    "at_mul_uniqflag": ([7, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 0],
        [14, 2, 12, 32, 12, 2, 4]),
    "at_min_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 2, 0, 0]),
    "at_min_uniq": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 2, 1.5, 4, 1.5, 0, 0]),
    "at_min_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 2, 0, 0]),
    "at_min_uniqflag": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 2, 1.5, 4, 1.5, 0, 0]),
    "at_min_rep_tie": ([1, 0, 0, 0, 0, 0, 0, 0, 0.3333334, 0, 0, 0.3333333, 0.3333333, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 2, 3, 0, 0, 0, 4]),
    "at_min_oob_tie": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 0, 0, 2]),
    "at_min_uniq_tie": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 2, 3, 0, 0, 0, 4]),
    "at_max_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "at_max_uniq": ([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 2, 1.5, 0, 1.5, 1, 4]),
    "at_max_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 0, 0, 2]),
    "at_max_uniqflag": ([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 2, 1.5, 0, 1.5, 1, 4]),
    "at_max_rep_tie": ([1, 0, 0, 0, 0, 0, 0, 0, 0.3333334, 0, 0, 0.3333333, 0.3333333, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 1, 1, 0]),
    "at_max_oob_tie": ([1, 0, 0, 0, 0, 0, 0, 0, 0.5, 0, 0, 0.5, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 2, 0, 0]),
    "at_max_uniq_tie": ([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [0, 2, 0, 4, 3, 1, 0]),
    "lax_scatter_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "lax_scatter_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 0, 0, 2]),
    "lax_scatter_rep_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "lax_scatter_oob_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0],
        [1, 0, 3, 0, 0, 4, 2]),
    "lax_scatter_rep_pib": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "lax_scatter_uniq_u": ([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 2, 0, 0, 3, 1, 4]),
    "lax_scatter_add_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        [1, 2, 3, 4, 2, 2, 4]),
    "lax_scatter_add_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 2, 3, 4, 2, 0, 2]),
    "lax_scatter_add_rep_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        [1, 2, 3, 4, 2, 2, 4]),
    "lax_scatter_add_oob_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0],
        [1, 2, 3, 4, 2, 4, 2]),
    "lax_scatter_add_rep_pib": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        [1, 2, 3, 4, 2, 2, 4]),
    "lax_scatter_add_uniq_u": ([1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        [1, 2, 3, 4, 3, 1, 4]),
    "lax_scatter_min_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 2, 0, 0]),
    "lax_scatter_min_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 2, 0, 0]),
    "lax_scatter_min_rep_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 2, 0, 0]),
    "lax_scatter_min_rep_pib": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 2, 0, 0]),
    "lax_scatter_min_uniq_u": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 2, 1.5, 4, 1.5, 0, 0]),
    "lax_scatter_max_rep": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "lax_scatter_max_oob": ([1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        [1, 0, 3, 4, 0, 0, 2]),
    "lax_scatter_max_rep_clip": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "lax_scatter_max_rep_pib": ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 3, 0, 0, 2, 4]),
    "lax_scatter_max_uniq_u": ([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 2, 1.5, 0, 1.5, 1, 4]),
    "lax_scatter_mul_uniq_u": ([7, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 0],
        [14, 2, 12, 32, 12, 2, 4]),
}

JAX_GRADS = {
    "batch_add": ([1, 2, 3, 4, 4, 3, 2, 1],
        [2, 2, 4, 4, 2, 2]),
    "batch_max": ([1, 0, 3, 0, 0, 3, 2, 1],
        [0, 2, 4, 4, 0, 0]),
    "batch_min": ([1, 0, 3, 4, 4, 3, 0, 1],
        [2, 0, 0, 0, 0, 2]),
    "batch_set": ([1, 0, 3, 0, 0, 3, 0, 1],
        [0, 2, 4, 4, 0, 2]),
    "rows_add_oob": ([1, 2, 3, 4, 5, 6, 7, 8],
        [3, 4, 0, 0, 3, 4]),
    "rows_add_rep": ([1, 2, 3, 4, 5, 6, 7, 8],
        [3, 4, 3, 4, 7, 8]),
    "rows_max_oob": ([1, 2, 0, 4, 5, 6, 7, 8],
        [0, 0, 0, 0, 3, 0]),
    "rows_max_rep": ([1, 2, 0, 0, 5, 6, 0, 8],
        [0, 0, 3, 4, 7, 0]),
    "rows_min_oob": ([1, 2, 0, 0, 5, 6, 7, 8],
        [3, 0, 0, 0, 0, 4]),
    "rows_min_rep": ([1, 2, 0, 0, 5, 6, 7, 0],
        [3, 4, 0, 0, 0, 8]),
    "rows_set_oob": ([1, 2, 0, 0, 5, 6, 7, 8],
        [0, 0, 0, 0, 3, 4]),
    "rows_set_rep": ([1, 2, 0, 0, 5, 6, 0, 0],
        [0, 0, 3, 4, 7, 8]),
}


def _grad(f):
    return astjax.grad(lambda x, u, w: jnp.sum(f(x, u) * w), argnums=(0, 1))


def _flat(pair):
    return np.concatenate([np.ravel(a) for a in pair])


@pytest.mark.parametrize("name", sorted(JAX_JACOBIANS))
def test_derivatives_match_jax(name):
    f, u = _case(name)
    J, vg2 = (np.asarray(v, np.float32) for v in JAX_JACOBIANS[name])
    J = J.reshape(4, 7)
    for jac in (astjax.jacfwd, astjax.jacrev):
        jx, ju = jac(f, argnums=(0, 1))(X, u)
        np.testing.assert_allclose(np.concatenate([jx, ju], axis=1), J, rtol=1e-6,
                                   err_msg=f"{jac.__name__}")
    g = _grad(f)
    for how, run in (("grad", g), ("jit(grad)", astjax.jit(g))):
        np.testing.assert_allclose(_flat(run(X, u, W)), W @ J, rtol=1e-6, err_msg=how)
    gx, gu = astjax.vmap(g)(np.stack([X, X + 1]), np.stack([u, u * 2]), np.stack([W, W]))
    np.testing.assert_allclose(np.concatenate([gx[0], gu[0]]), W @ J, rtol=1e-6)
    np.testing.assert_allclose(np.concatenate([gx[1], gu[1]]), vg2, rtol=1e-6)


X2 = np.arange(8, dtype=np.float32).reshape(4, 2)
U2 = np.array([[1., 2.], [3., 4.], [9., -1.]], np.float32)
W2 = np.arange(1, 9, dtype=np.float32).reshape(4, 2)


def _windowed(name):
    """rows_<kind>_<idx>: rows of a (4, 2) operand (windows of 2); batch_<kind>: `vmap`
    over an operand, indices [[1, 1, 3], [0, 2, 2]] and updates (operand batching dims)."""
    kind = name.split("_")[1]
    if name.startswith("rows"):
        i = np.array({"rep": [1, 1, 3], "oob": [1, 5, 1]}[name.split("_")[2]])
        return (lambda x, u: getattr(jnp.asarray(x).at[i], kind)(u)), X2, U2, W2
    i = np.array([[1, 1, 3], [0, 2, 2]])

    def f(x, u):
        return astjax.vmap(lambda xr, ir, ur: getattr(xr.at[ir], kind)(ur))(x, i, u)
    return f, np.stack([X, X * 2]), np.stack([U, U_TIE]), np.stack([W, W[::-1]])


@pytest.mark.parametrize("name", sorted(JAX_GRADS))
def test_windows_and_batching_dims_match_jax(name):
    f, x, u, w = _windowed(name)
    want = _flat(np.asarray(v, np.float32) for v in JAX_GRADS[name])
    g = _grad(f)
    for how, run in (("grad", g), ("jit(grad)", astjax.jit(g))):
        np.testing.assert_allclose(_flat(run(x, u, w)), want, rtol=1e-6, err_msg=how)
    jx, ju = astjax.jacrev(f, argnums=(0, 1))(x, u)
    ax = tuple(range(w.ndim))
    np.testing.assert_allclose(_flat([np.tensordot(w, j, (ax, ax)) for j in (jx, ju)]), want,
                               rtol=1e-6)


@pytest.mark.parametrize("name", ["at_mul_rep", "at_mul_oob", "lax_scatter_mul_rep",
                                  "lax_scatter_mul_oob_clip"])
def test_scatter_mul_update_gradient_needs_unique_indices(name):
    # jax 0.10.2: NotImplementedError, "only implemented if `unique_indices=True`"
    f, u = _case(name)
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        astjax.grad(lambda u: jnp.sum(f(X, u)))(u)
    # the operand's gradient needs no promise: each element times its updates' product
    np.testing.assert_allclose(astjax.grad(lambda x: jnp.sum(f(x, u) * W))(X),
                               W * np.asarray(f(np.ones(4, np.float32), u)), rtol=1e-6)


def test_scatter_mul_update_tangent_is_operand_times_scattered_tangent():
    # jax 0.10.2: x * scatter_add(0, i, t) -- NaN where an unnamed operand element is inf
    x = np.array([np.inf, 2., 3.], np.float32)
    got = astjax.jacfwd(lambda u: lax.scatter_mul(x, np.array([[1]]), u, DN,
                                                  unique_indices=True))(np.array([5.], np.float32))
    np.testing.assert_array_equal(got, [[np.nan], [2.], [0.]])


@pytest.mark.parametrize("op, want_x, want_u", [
    # [1, 7, 1] clamped to [1, 3, 1]: max keeps x[1] = 5 and writes u[1] = 7 at 3; min
    # writes u[0] = 2 at 1 and keeps x[3] = 0
    ("max", [1, 2, 3, 0], [0, 4, 0]), ("min", [1, 0, 3, 4], [2, 0, 0])])
def test_extremal_clip_out_of_bounds_shares_the_clamped_element(op, want_x, want_u):
    # jax 0.10.2 gives inf / NaN here (its rule counts the updates with a scatter-add that
    # drops, not clamps, the out-of-bounds one): astjax keeps the finite JVP its own
    # value has, the same in every mode of differentiation
    f, u = _case(f"at_{op}_oob_clip")
    want = np.concatenate([want_x, want_u]).astype(np.float32)
    np.testing.assert_allclose(_flat(_grad(f)(X, u, W)), want)
    for jac in (astjax.jacfwd, astjax.jacrev):
        jx, ju = jac(f, argnums=(0, 1))(X, u)
        np.testing.assert_allclose(W @ np.concatenate([jx, ju], axis=1), want)


def test_scatter_transpose_needs_unique_indices():
    z, i = np.zeros(3, np.float32), np.array([[1], [1]])
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        astjax.linear_transpose(lambda u: lax.scatter(z, i, u, DN), U[:2])(W[:3])
    # unique: the cotangent read back at the indices (jax 0.10.2)
    got, = astjax.linear_transpose(lambda u: lax.scatter(z, np.array([[1], [0]]), u, DN,
                                                         unique_indices=True), U[:2])(W[:3])
    np.testing.assert_array_equal(got, [2., 1.])
    got, = astjax.linear_transpose(lambda u: lax.scatter_mul(
        np.array([1., 2., 3.], np.float32), np.array([[1], [0]]), u, DN, unique_indices=True),
        U[:2])(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(got, [2., 0.])


XA = np.array([1., 2., 3., 4.], np.float32)


@pytest.mark.parametrize("index, kw, want", [
    # jax 0.10.2: func sees one element at a time (v / v.sum() is 1), once per naming
    (np.array([0, 1, 1]), {}, [1, 1, 3, 4]),
    (1, {}, [1, 1, 3, 4]),
    (slice(1, 3), {}, [1, 1, 1, 4]),
])
def test_at_apply_is_elementwise(index, kw, want):
    got = jnp.asarray(XA).at[index].apply(lambda v: v / v.sum(), **kw)
    np.testing.assert_array_equal(got, want)
    rows = jnp.arange(6.).reshape(2, 3).at[np.array([1, 1])].apply(lambda v: v - v.mean())
    np.testing.assert_array_equal(rows, [[0, 1, 2], [0, 0, 0]])   # jax 0.10.2


def test_at_apply_repeats_and_modes():
    x = jnp.asarray(XA)
    np.testing.assert_array_equal(astjax.jit(lambda x: x.at[np.array([2, 2, 2])].apply(
        lambda v: v * 2))(x), [1, 2, 24, 4])
    i = np.array([0, 9, 0])
    np.testing.assert_array_equal(x.at[i].apply(lambda v: v + 1), [3, 2, 3, 4])
    np.testing.assert_array_equal(x.at[i].apply(lambda v: v + 1, mode="clip"), [3, 2, 3, 5])
    got = astjax.vmap(lambda x, i: x.at[i].apply(lambda v: v * 2))(
        jnp.stack([x, x]), np.array([[0, 0], [1, 3]]))
    np.testing.assert_array_equal(got, [[4, 2, 3, 4], [1, 4, 3, 8]])   # jax 0.10.2


@pytest.mark.parametrize("func", [lambda v: v * 2.5, lambda v: jnp.stack([v, v])])
@pytest.mark.parametrize("index", [np.array([0, 0]), 0])
def test_at_apply_func_of_another_type_raises(func, index):
    # jax 0.10.2: a ValueError (the scatter region's type); astjax cast it silently
    with pytest.raises(ValueError, match="scatter region"):
        jnp.array([1, 2, 3, 4]).at[index].apply(func)


def test_repeated_index_gradient_exports_with_symbolic_updates():
    # the JVP numbers the updates: a symbolic count stays symbolic in the export
    from astjax import export

    def f(x, i, u):
        return astjax.grad(lambda u: jnp.sum(x.at[i].set(u) * 2.0))(u)
    n = export.symbolic_shape("n")
    e = export.export(astjax.jit(f))(astjax.ShapeDtypeStruct((5,), np.float32),
                                     astjax.ShapeDtypeStruct(n, np.int32),
                                     astjax.ShapeDtypeStruct(n, np.float32))
    got = e.call(np.zeros(5, np.float32), np.array([1, 1, 2], np.int32), np.ones(3, np.float32))
    np.testing.assert_array_equal(got, [0, 2, 2])
