"""JAX 0.10.2's CUDA lowering of the linear-algebra entry points, stored for
tests/test_linalg_cuda_lowering.py (see README.md).

`cases(jax)` gives, per name, a function and its argument specs ((shape, dtype) pairs);
each is exported for `("cuda",)` -- no GPU needed -- and only the module's
`stablehlo.custom_call` lines are kept (SSA names normalized by `custom_calls`), so
the file stays small, with whether JAX's export refuses the kernels as not stable. A function JAX cannot lower for CUDA (schur, hessenberg: CPU
only) is stored as the error's class name. JAX has no CUDA plugin here: `eig` and
pivoted `qr` take the hybrid (MAGMA / LAPACK-on-host) kernels, as JAX does without
cuSOLVER's version at hand; the `GEEV` cases are recorded again as JAX lowers them
with cuSOLVER 11.7.1 or newer (`NAME@geev`: cuSOLVER's geev when no left
eigenvectors are asked for). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_linalg_cuda.py` writes linalg_cuda.json.
"""
import json
import re
import sys
import types
from pathlib import Path

F32, F64, C64 = "float32", "float64", "complex64"
REAL_COMPLEX = (F32, F64, C64)
# the eig cases recorded again as lowered with cuSOLVER's geev (`NAME@geev`)
GEEV = ("eig_float32", "eig_right_float32", "eig_values_float32", "eig_values_complex64",
        "jnp_eig_float32", "jnp_eig_complex64", "jnp_eigvals_float32")


def custom_calls(text):
    """The `stablehlo.custom_call` lines of module `text`, SSA names as `%`."""
    out = []
    for line in text.splitlines():
        if "stablehlo.custom_call" not in line:
            continue
        line = re.sub(r"\s*loc\(.*\)$", "", line.strip())
        out.append(re.sub(r"%[\w#:.]+", "%", line))
    return out


def cases(jax):
    """name -> (function, [(shape, dtype), ...])."""
    jnp, lax_linalg, sla = jax.numpy, jax.lax.linalg, jax.scipy.linalg
    out = {}

    def add(name, fn, *specs, dtypes=(F32,)):
        for dt in dtypes:
            out[f"{name}_{dt}"] = (fn, [(s, dt if d is None else d) for s, d in specs])

    sq, batch = ((3, 3), None), ((2, 3, 3), None)
    # lax.linalg: the primitives, every dtype JAX's CUDA kernels take
    add("cholesky", lax_linalg.cholesky, sq, dtypes=REAL_COMPLEX)
    add("cholesky_batched", lax_linalg.cholesky, batch)
    add("lu", lax_linalg.lu, sq, dtypes=REAL_COMPLEX)
    add("lu_tall_batched", lax_linalg.lu, ((2, 4, 3), None))
    add("lu_pivots_to_permutation", lambda p: lax_linalg.lu_pivots_to_permutation(p, 4),
        ((3,), "int32"), dtypes=("int32",))
    add("lu_pivots_to_permutation_batched",
        lambda p: lax_linalg.lu_pivots_to_permutation(p, 3), ((2, 3), "int32"), dtypes=("int32",))
    add("qr", lax_linalg.qr, ((4, 3), None), dtypes=REAL_COMPLEX)
    add("qr_reduced", lambda a: lax_linalg.qr(a, full_matrices=False), ((4, 3), None))
    add("qr_wide", lax_linalg.qr, ((3, 4), None))
    add("qr_batched", lax_linalg.qr, batch)
    add("qr_pivoting", lambda a: lax_linalg.qr(a, pivoting=True), ((4, 3), None),
        dtypes=(F32, C64))
    add("householder_product", lax_linalg.householder_product, ((4, 3), None), ((3,), None),
        dtypes=(F32, F64, C64))
    add("ormqr", lambda a, t, c: lax_linalg.ormqr(a, t, c, left=False, transpose=True),
        ((4, 3), None), ((3,), None), ((2, 4), None), dtypes=(F32, C64))
    add("eigh", lax_linalg.eigh, sq, dtypes=REAL_COMPLEX)
    add("eigh_upper_batched", lambda a: lax_linalg.eigh(a, lower=False), batch)
    add("svd", lax_linalg.svd, ((4, 3), None), dtypes=REAL_COMPLEX)
    add("svd_reduced", lambda a: lax_linalg.svd(a, full_matrices=False), ((4, 3), None),
        dtypes=(F32, C64))
    add("svd_values", lambda a: lax_linalg.svd(a, compute_uv=False), ((3, 4), None))
    add("svd_batched", lax_linalg.svd, batch)
    add("svd_econ", lambda a: lax_linalg.svd(a, full_matrices=False), ((40, 36), None))
    add("svd_gesvd_tall", lax_linalg.svd, ((1100, 3), None))
    add("svd_gesvd_wide", lambda a: lax_linalg.svd(a, full_matrices=False), ((3, 1100), None),
        dtypes=(F32, C64))
    add("svd_gesvd_values", lambda a: lax_linalg.svd(a, compute_uv=False), ((1100, 3), None))
    add("svd_values_reduced", lambda a: lax_linalg.svd(a, full_matrices=False,
                                                       compute_uv=False), ((40, 36), None))
    add("svd_gesvd_values_reduced", lambda a: lax_linalg.svd(a, full_matrices=False,
                                                             compute_uv=False),
        ((1100, 3), None))
    # the algorithm choices (each lowered for CUDA as JAX picks its kernel)
    eigh_impl, svd_alg = lax_linalg.EighImplementation, lax_linalg.SvdAlgorithm
    for impl in ("JACOBI", "QR", "QDWH"):
        add(f"eigh_{impl.lower()}",
            lambda a, impl=impl: lax_linalg.eigh(a, implementation=getattr(eigh_impl, impl)),
            sq, dtypes=(F32, C64) if impl == "JACOBI" else (F32,))
    for alg in ("DEFAULT", "QR", "JACOBI", "POLAR", "DIVIDE_AND_CONQUER"):
        def svd_by(full=True, uv=True, alg=alg):
            return lambda a: lax_linalg.svd(a, full_matrices=full, compute_uv=uv,
                                            algorithm=getattr(svd_alg, alg))
        add(f"svd_{alg.lower()}", svd_by(), ((4, 3), None),
            dtypes=(F32, C64) if alg in ("QR", "POLAR") else (F32,))
        if alg in ("QR", "JACOBI", "POLAR"):
            add(f"svd_{alg.lower()}_wide_reduced", svd_by(full=False), ((3, 4), None))
            add(f"svd_{alg.lower()}_values", svd_by(uv=False), ((4, 3), None))
    add("svd_jacobi_econ", lambda a: lax_linalg.svd(a, full_matrices=False,
                                                    algorithm=svd_alg.JACOBI), ((40, 36), None))
    add("svd_jacobi_large", lambda a: lax_linalg.svd(a, full_matrices=False,
                                                     algorithm=svd_alg.JACOBI), ((1100, 3), None))
    add("eig", lax_linalg.eig, sq, dtypes=REAL_COMPLEX)
    add("eig_right", lambda a: lax_linalg.eig(a, compute_left_eigenvectors=False), batch)
    add("eig_values", lambda a: lax_linalg.eig(a, compute_left_eigenvectors=False,
                                               compute_right_eigenvectors=False), sq,
        dtypes=(F32, C64))
    add("schur", lax_linalg.schur, sq)
    add("hessenberg", lax_linalg.hessenberg, sq)
    add("tridiagonal", lax_linalg.tridiagonal, sq, dtypes=REAL_COMPLEX)
    add("tridiagonal_upper_batched", lambda a: lax_linalg.tridiagonal(a, lower=False), batch)
    add("triangular_solve", lambda a, b: lax_linalg.triangular_solve(a, b, left_side=True,
                                                                     lower=True),
        sq, ((3, 2), None), dtypes=(F32, C64))
    diag4 = ((4,), None)
    add("tridiagonal_solve", lax_linalg.tridiagonal_solve, diag4, diag4, diag4,
        ((4, 2), None), dtypes=REAL_COMPLEX)
    add("tridiagonal_solve_batched", lax_linalg.tridiagonal_solve, ((2, 4), None),
        ((2, 4), None), ((2, 4), None), ((2, 4, 1), None))
    add("tridiagonal_solve_small", lax_linalg.tridiagonal_solve, ((2,), None), ((2,), None),
        ((2,), None), ((2, 3), None))
    add("tridiagonal_solve_perturbed",
        lambda *a: lax_linalg.tridiagonal_solve(*a, perturb_singular=True), diag4, diag4,
        diag4, ((4, 2), None), dtypes=(F32, C64))
    add("symmetric_product", lambda a, c: lax_linalg.symmetric_product(a, c, alpha=2.0,
                                                                       beta=0.5),
        ((3, 2), None), sq, dtypes=(F32, F64))
    add("cholesky_update", lax_linalg.cholesky_update, sq, ((3,), None), dtypes=(F32, F64))
    # jnp.linalg
    vec = ((3,), None)
    for name in ("cholesky", "det", "slogdet", "inv", "eigh", "eigvalsh", "eig", "eigvals",
                 "svd", "svdvals", "pinv", "matrix_rank", "qr", "cond"):
        add(f"jnp_{name}", getattr(jnp.linalg, name), sq, dtypes=(F32, C64))
    add("jnp_solve", jnp.linalg.solve, sq, vec, dtypes=(F32, C64))
    add("jnp_solve_batched", jnp.linalg.solve, batch, ((2, 3, 2), None))
    add("jnp_lstsq", lambda a, b: jnp.linalg.lstsq(a, b), ((4, 3), None), ((4,), None))
    add("jnp_qr_r", lambda a: jnp.linalg.qr(a, mode="r"), ((4, 3), None))
    add("jnp_qr_raw", lambda a: jnp.linalg.qr(a, mode="raw"), ((4, 3), None), dtypes=(F32, C64))
    add("jnp_norm_2", lambda a: jnp.linalg.norm(a, ord=2), ((4, 3), None))
    add("jnp_tensorinv", lambda a: jnp.linalg.tensorinv(a, ind=1), ((4, 2, 2), None))
    # jax.scipy.linalg
    for name in ("lu", "lu_factor", "cho_factor", "qr", "eigh", "svd", "det", "inv", "expm",
                 "polar", "schur", "hessenberg", "sqrtm"):
        add(f"scipy_{name}", getattr(sla, name), sq)
    add("scipy_cholesky", sla.cholesky, sq, dtypes=(F32, C64))
    add("scipy_lu_solve", lambda a, b: sla.lu_solve(sla.lu_factor(a), b), sq, vec)
    add("scipy_cho_solve", lambda a, b: sla.cho_solve(sla.cho_factor(a), b), sq, vec)
    add("scipy_solve", sla.solve, sq, vec, dtypes=(F32, C64))
    add("scipy_solve_pos", lambda a, b: sla.solve(a, b, assume_a="pos"), sq, vec)
    add("scipy_solve_triangular", sla.solve_triangular, sq, vec)
    add("scipy_eigh_values", lambda a: sla.eigh(a, eigvals_only=True), sq)
    return out


def record(jax, fn, specs, platform="cuda"):
    """{"calls": the custom_call lines of `fn`'s export for `platform`, "unstable": whether
    export refuses it without disabling the custom-call check (a kernel JAX does not
    keep stable)}, or {"error": the class name of what JAX raises, "message": its first
    line}."""
    args = [jax.ShapeDtypeStruct(s, d) for s, d in specs]
    export = jax.export
    try:
        exp = export.export(jax.jit(fn), platforms=[platform], disabled_checks=[
            export.DisabledSafetyCheck.custom_call("ALL")])(*args)
    except Exception as e:  # noqa: BLE001  (what JAX raises is the record)
        return {"error": type(e).__name__, "message": str(e).splitlines()[0]}
    out = {"calls": custom_calls(exp.mlir_module()), "unstable": False}
    try:
        export.export(jax.jit(fn), platforms=[platform])(*args)
    except ValueError:
        out["unstable"] = True
    return out


def main():
    import jax
    assert jax.__version__ == "0.10.2", jax.__version__
    jax.config.update("jax_enable_x64", True)
    import jax.scipy.linalg  # noqa: F401
    all_cases = cases(jax)
    rocm = {name: record(jax, fn, specs, "rocm") for name, (fn, specs) in all_cases.items()}
    path = Path(__file__).with_name("linalg_rocm.json")
    path.write_text(json.dumps(rocm, indent=0) + "\n")
    print(f"wrote {path}: {len(rocm)} cases")
    out = {name: record(jax, fn, specs) for name, (fn, specs) in all_cases.items()}
    # with a cuSOLVER that has geev (11.7.1+, as on a recent GPU), eig without left
    # eigenvectors takes it instead of the hybrid kernel
    from jax._src.lax import linalg
    linalg.cuda_versions = types.SimpleNamespace(cusolver_get_version=lambda: 11701)
    jax.clear_caches()
    for name in GEEV:
        out[f"{name}@geev"] = record(jax, *all_cases[name])
    path = Path(__file__).with_name("linalg_cuda.json")
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {path}: {len(out)} cases")


if __name__ == "__main__":
    sys.exit(main())
