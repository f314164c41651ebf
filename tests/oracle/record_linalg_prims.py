"""`lax.linalg`'s `symmetric_product_p`, `cholesky_update_p`,
`lu_pivots_to_permutation_p` and `tridiagonal_solve(perturb_singular=True)`, run on
real JAX to record `linalg_prims.json`, and on astjax by tests/test_linalg_prims.py."""
import json
import sys
from pathlib import Path

import numpy as np


def _inputs():
    r = np.random.default_rng(7)
    a = r.normal(size=(4, 3)).astype(np.float32)
    spd = (a @ a.T + 4 * np.eye(4)).astype(np.float32)
    rr = np.linalg.cholesky(spd).T.astype(np.float32)
    w = r.normal(size=4).astype(np.float32)
    dl = np.array([0., 1., 1., 2.], np.float32)
    d = np.array([1., 1., 2., 1.], np.float32)
    du = np.array([1., 2., 1., 0.], np.float32)
    b = (np.arange(8, dtype=np.float32).reshape(4, 2) + 1)
    m = 5
    t = np.diag(np.full(m, 2.)) - np.diag(np.ones(m - 1), 1) - np.diag(np.ones(m - 1), -1)
    lam = np.linalg.eigvalsh(t)[0]
    ii = (np.r_[0., -np.ones(m - 1)].astype(np.float32),
          (np.full(m, 2.) - lam).astype(np.float32),
          np.r_[-np.ones(m - 1), 0.].astype(np.float32), np.ones((m, 1), np.float32))
    z = np.zeros(3, np.float32)
    return dict(a=a, spd=spd, r=rr, w=w, tri=(dl, d, du, b), inverse_iteration=ii,
                zero=(z, z, z, np.ones((3, 2), np.float32)))


def run(jax, jnp, lax):
    """Every value as nested lists."""
    L = lax.linalg
    x = _inputs()
    out = {}
    out["symmetric_product"] = np.asarray(
        L.symmetric_product(x["a"], x["spd"], alpha=2.0, beta=0.5)).tolist()
    out["symmetric_product_sym"] = np.asarray(L.symmetric_product(
        x["a"], x["spd"], alpha=1.0, beta=1.0, symmetrize_output=True)).tolist()
    out["symmetric_product_p"] = np.asarray(L.symmetric_product_p.bind(
        jnp.asarray(x["a"]), jnp.asarray(x["spd"]), alpha=1.0, beta=0.0)).tolist()
    out["cholesky_update"] = np.asarray(L.cholesky_update(x["r"], x["w"])).tolist()
    out["cholesky_update_jit"] = np.asarray(jax.jit(L.cholesky_update)(x["r"], x["w"])).tolist()
    out["cholesky_update_p"] = np.asarray(L.cholesky_update_p.bind(
        jnp.asarray(x["r"]), jnp.asarray(x["w"] * 0))).tolist()
    piv = jnp.array([2, 2, 3, 3], jnp.int32)
    out["l2p"] = np.asarray(L.lu_pivots_to_permutation(piv, 5)).tolist()
    out["l2p_p"] = np.asarray(L.lu_pivots_to_permutation_p.bind(piv, permutation_size=4)).tolist()
    out["l2p_vmap"] = np.asarray(jax.vmap(lambda p: L.lu_pivots_to_permutation(p, 4))(
        jnp.array([[1, 1, 3], [2, 2, 2]], jnp.int32))).tolist()
    out["l2p_jaxpr"] = str(jax.make_jaxpr(lambda p: L.lu_pivots_to_permutation(p, 5))(piv))
    out["symprod_vmap"] = np.asarray(jax.vmap(
        lambda a: L.symmetric_product(a, x["spd"], alpha=1.0, beta=2.0))(
            np.stack([x["a"], 2 * x["a"]]))).tolist()
    for name in ("tri", "inverse_iteration", "zero"):
        out[f"perturbed_{name}"] = np.asarray(
            L.tridiagonal_solve(*x[name], perturb_singular=True)).tolist()
    out["unperturbed_zero"] = np.asarray(L.tridiagonal_solve(*x["zero"])).tolist()
    dl, d, du, b = x["tri"]
    d3 = d + 3
    f = lambda d_, b_: L.tridiagonal_solve(dl, d_, du, b_, perturb_singular=True).sum()
    out["perturbed_grad"] = [np.asarray(g).tolist() for g in jax.grad(f, (0, 1))(d3, b)]
    out["perturbed_vmap"] = np.asarray(jax.vmap(
        lambda bb: L.tridiagonal_solve(dl, d, du, bb, perturb_singular=True))(
            np.stack([b, -b]))).tolist()
    errors = {}
    for name, fn in (("grad_symmetric_product", lambda: jax.grad(
            lambda a: L.symmetric_product(a, x["spd"]).sum())(x["a"])),
                     ("grad_cholesky_update", lambda: jax.grad(
            lambda w: L.cholesky_update(x["r"], w).sum())(x["w"])),
                     ("l2p_too_small", lambda: L.lu_pivots_to_permutation(piv, 3)),
                     ("cholesky_update_shapes", lambda: L.cholesky_update(x["r"], x["w"][:3]))):
        try:
            fn()
            errors[name] = None
        except Exception as e:  # noqa: BLE001 -- the class is the recorded value
            errors[name] = [c.__name__ for c in type(e).__mro__
                            if c.__module__ == "builtins" and c is not object][0]
    out["errors"] = errors
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax
    assert "astjax" not in sys.modules
    result = run(jax, jnp, lax)
    Path(__file__).with_name("linalg_prims.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {len(result)} values")
