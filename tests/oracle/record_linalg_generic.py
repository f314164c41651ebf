"""The LAPACK-backed `lax.linalg` primitives lowered for a platform JAX 0.10.2 has no
kernels for ('tpu2'), stored for tests/test_linalg_generic.py. JAX lowers there the
rules it registers without a platform: `lu` (a `fori_loop` in lax operations; `inv` and `solve` on it),
`geqrf` and `householder_product` (custom calls named `Qr` and
`ProductOfElementaryHouseholderReflectors`, which XLA's TPU backend implements), `qr`
on them, `tridiagonal_solve`, `ormqr`, ...; the others (`eigh`, `eig`, `schur`,
`hessenberg`, `tridiagonal`, `geqp3`, and `svd`, whose generic rule is the TPU
algorithm on `eigh`) are its NotImplementedError.

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_linalg_generic.py`
writes linalg_generic.json: per case `{"text": module}` (a lowering made of custom
calls: compared exactly), `{"value": leaves}` (the module compiled for this machine's
CPU and run, as `lower(...).compile()` does whatever the lowering platform) or
`{"error": class name, "message": ...}`.
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
_RNG = np.random.default_rng(13)
A = _RNG.standard_normal((4, 4)).astype(np.float32)
WIDE = _RNG.standard_normal((2, 3, 5)).astype(np.float32)
CPLX = (_RNG.standard_normal((3, 3)) + 1j * _RNG.standard_normal((3, 3))).astype(np.complex64)
CPLX_4 = (_RNG.standard_normal((4, 4)) + 1j * _RNG.standard_normal((4, 4))).astype(np.complex64)
SINGULAR = np.array([[0., 1., 2.], [0., 2., 4.], [0., 1., 1.]], np.float32)


def functions(jnp, lax, householder):
    """name -> (function, argument)."""
    return {
        "lu": (lambda a: lax.linalg.lu(a), A),
        "lu_batched_wide": (lambda a: lax.linalg.lu(a), WIDE),
        "lu_complex": (lambda a: lax.linalg.lu(a), CPLX),
        "lu_singular": (lambda a: lax.linalg.lu(a), SINGULAR),
        "inv": (jnp.linalg.inv, A),
        "geqrf": (householder.geqrf, A),
        "householder_product": (lambda a: lax.linalg.householder_product(a, a[0, :2]), A),
        "qr": (lambda a: lax.linalg.qr(a), A),
        "qr_reduced": (lambda a: lax.linalg.qr(a[:, :3], full_matrices=False), A),
        "eigh": (lambda a: lax.linalg.eigh(a), A),
        "svd": (lambda a: lax.linalg.svd(a), A),
        "eig": (lambda a: lax.linalg.eig(a), A),
        "schur": (lambda a: lax.linalg.schur(a), A),
        "hessenberg": (lambda a: lax.linalg.hessenberg(a), A),
        "tridiagonal": (lambda a: lax.linalg.tridiagonal(a), A),
        "qr_pivoting": (lambda a: lax.linalg.qr(a, pivoting=True), A),
        "tridiagonal_solve": (lambda a: lax.linalg.tridiagonal_solve(
            a[0].at[0].set(0.0), a[1] + 4.0, a[2].at[-1].set(0.0), a), A),
        "tridiagonal_solve_batched": (lambda a: lax.linalg.tridiagonal_solve(
            a[:, :3], a[:, :3] + 4.0, a[:, 1:], a[:, :3, None]), CPLX_4),
        "tridiagonal_solve_perturbed": (lambda a: lax.linalg.tridiagonal_solve(
            a[0], a[1], a[2], a, perturb_singular=True), A),
        "ormqr_right_transposed": (lambda a: lax.linalg.ormqr(
            a, a[1, :2], a[:3], left=False, transpose=True), CPLX_4),
        "ormqr": (lambda a: lax.linalg.ormqr(a, a[0, :3], a), A),
    }


# the cases whose module text is compared (custom calls XLA's CPU backend lacks)
TEXT = ("geqrf", "householder_product", "qr", "qr_reduced")


def cases(jax, jnp, lax, householder):
    """name -> thunk; each gives a JSON-able outcome or raises."""
    def case(name, f, x):
        lowered = jax.jit(f).trace(x).lower(lowering_platforms=("tpu2",))
        if name in TEXT:
            return {"text": lowered.as_text()}
        out = lowered.compile()(x)
        return {"value": [np.asarray(v).tolist() if np.asarray(v).dtype.kind != "c" else
                          [np.real(v).tolist(), np.imag(v).tolist()]
                          for v in jax.tree_util.tree_leaves(out)]}
    return {n: (lambda n=n, f=f, x=x: case(n, f, x))
            for n, (f, x) in functions(jnp, lax, householder).items()}


def outcome(thunk):
    try:
        return thunk()
    except Exception as e:   # noqa: BLE001 (the outcome is the error)
        names = [c.__name__ for c in type(e).__mro__]
        cls = next(n for n in ("NotImplementedError", "ValueError", "TypeError", "Exception")
                   if n in names)
        return {"error": cls, "message": getattr(e, "message", str(e))}


if __name__ == "__main__":
    import jax
    from jax._src.lax import linalg as jax_linalg
    (HERE / "linalg_generic.json").write_text(json.dumps(
        {"jax": jax.__version__,
         "cases": {n: outcome(t) for n, t in cases(jax, jax.numpy, jax.lax,
                                                    jax_linalg).items()}},
        indent=1, sort_keys=True) + "\n")
