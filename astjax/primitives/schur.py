"""The Schur decomposition on LAPACK (`lax.linalg.schur`): `schur_p` and its wrapper.

`schur(a, compute_schur_vectors, sort_eig_vals, select_callable)` -> (t, [z]) with
a = z t z^H, t (quasi) upper triangular, lowered to LAPACK's gees as JAX does on CPU
(NaN where LAPACK reports a failure); no derivative, as in JAX, and a batch rule
that brings the batch axis to the front (the kernel loops over leading dimensions).
The sorting options are parameters, as in JAX: `select_callable` alone is unused,
`sort_eig_vals=True` is JAX's NotImplementedError when run or lowered. No CUDA
kernel exists (JAX: CPU only).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import NotImplementedInAstjaxError, ShapeError
from . import lapack
from .base import INEXACT, check_dtype, deffront, mark_unsupported, register

__all__ = ["schur_p", "schur"]

schur_p = core.new_primitive("schur", multiple_results=True)


def _schur_ae(a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    check_dtype("schur", INEXACT, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"schur needs square matrices (..., n, n), got shape {a.shape}")
    return [ShapedArray(a.shape, a.dtype)] * (2 if compute_schur_vectors else 1)


def _no_sort(sort_eig_vals):
    # JAX keeps the sorting options as parameters (`select_callable` alone is
    # ignored, as LAPACK's gees selects only when sorting) and refuses sorting when
    # the primitive is lowered or run
    if sort_eig_vals:
        raise NotImplementedInAstjaxError(
            "The sort feature of LAPACK's gees routine is not implemented.",
            hint="JAX 0.10.2 refuses it too: sort the eigenvalues of the result instead")


def _schur_impl(a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _no_sort(sort_eig_vals)
    try:  # NumPy has no Schur decomposition: the reference is SciPy's, when installed
        import scipy.linalg as sla
    except ImportError:
        raise NotImplementedInAstjaxError("the reference of schur needs scipy") from None
    a = np.asarray(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    out = [sla.schur(x, output="complex" if np.iscomplexobj(x) else "real") for x in flat]
    t = np.stack([o[0] for o in out]).reshape(a.shape).astype(a.dtype)
    z = np.stack([o[1] for o in out]).reshape(a.shape).astype(a.dtype)
    return [t, z] if compute_schur_vectors else [t]


def _schur_lowering(ctx, a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _no_sort(sort_eig_vals)
    aval = ctx.avals_in[0]
    info = lapack.info_aval(aval)
    w_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    real = not dtypes.issubdtype(aval.dtype, np.complexfloating)
    eigs = [w_aval, w_aval] if real else [w_aval]
    res = lapack.lapack_call(ctx, "gees", [a], [aval], [aval, aval] + eigs + [info, info],
                             aliases={0: 0}, mode="V" if compute_schur_vectors else "N", sort="N")
    t, z, status = res[0], res[1], res[-1]
    ok = lapack.info_ok(ctx, status, info)
    out = [lapack.nan_unless(ctx, ok, info, t, aval)]
    if compute_schur_vectors:
        out.append(lapack.nan_unless(ctx, ok, info, z, aval))
    return out


register(schur_p, impl=_schur_impl, abstract_eval=_schur_ae, lowering=_schur_lowering)
mark_unsupported(schur_p, "jvp", "the Schur decomposition has no derivative rule (JAX "
                 "defines none)")
deffront(schur_p)


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """`lax.linalg.schur`: [T, Z] with x = Z T Z^H, T (quasi) upper triangular
    (LAPACK gees), or [T] without the vectors (a list, as JAX's). As in JAX, `select_callable` is unused and `sort_eig_vals=True`
    is a NotImplementedError when the function is run or lowered."""
    return list(bind(schur_p, x, compute_schur_vectors=bool(compute_schur_vectors),
                      sort_eig_vals=bool(sort_eig_vals), select_callable=select_callable))
