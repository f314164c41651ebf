"""`astjax.scipy.linalg`: solve_triangular, cho_factor/cho_solve, lu_factor/lu_solve,
cholesky, det, inv, solve — the subset StableHLO allows (see numpy.linalg)."""
from __future__ import annotations

import numpy as np

from .. import core, lax
from ..core import bind
from ..errors import ShapeError
from ..numpy import linalg as _la
from ..numpy.ufuncs import (asarray_operand, broadcast_shapes as _broadcast_shapes,
                            broadcast_to_shape as _broadcast_to_shape, equal as _equal,
                            promote_dtypes, promote_dtypes_inexact, where as _where)
from ..primitives.linalg import triangular_solve_p

__all__ = ["solve_triangular", "cholesky", "cho_factor", "cho_solve", "lu_factor", "lu_solve",
           "det", "inv", "solve", "qr"]

det, inv, qr = _la.det, _la.inv, _la.qr


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """Solve a x = b (trans=0), a^T x = b (1 / 'T') or a^H x = b (2 / 'C')."""
    a, b = promote_dtypes_inexact(asarray_operand(a), asarray_operand(b))
    vec = core.get_aval(b).ndim == core.get_aval(a).ndim - 1
    if vec:
        b = lax.expand_dims(b, (core.get_aval(b).ndim,))
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if sa[:-2] != sb[:-2]:
        batch = _broadcast_shapes(sa[:-2], sb[:-2])
        a, b = _broadcast_to_shape(a, batch + sa[-2:]), _broadcast_to_shape(b, batch + sb[-2:])
    t = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}[trans]
    out = bind(triangular_solve_p, a, b, left_side=True, lower=bool(lower),
               transpose_a=t > 0, conjugate_a=t == 2, unit_diagonal=bool(unit_diagonal))
    return lax.squeeze(out, (core.get_aval(out).ndim - 1,)) if vec else out


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    return _la.cholesky(a, upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    if lower:
        y = solve_triangular(c, b, trans=0, lower=True)
        return solve_triangular(c, y, trans=2, lower=True)
    y = solve_triangular(c, b, trans=2, lower=False)
    return solve_triangular(c, y, trans=0, lower=False)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) with LAPACK-style pivots: row i was swapped with row piv[i]."""
    lu, _, _, piv = _la._lu(a)
    return lu, piv


def _piv_to_perm(piv):
    n = core.get_aval(piv).shape[-1]
    batch = core.get_aval(piv).shape[:-1]
    idx = lax.broadcasted_iota(piv.dtype if hasattr(piv, "dtype") else np.int32,
                               batch + (n,), len(batch))
    perm = idx
    for k in range(n):
        p = lax.slice_in_dim(piv, k, k + 1, axis=len(batch))
        pk = lax.slice_in_dim(perm, k, k + 1, axis=len(batch))
        pp = lax.reduce_sum(_where(_equal(idx, p), perm, 0), (len(batch),))
        pp = lax.reshape(pp, batch + (1,))
        perm = _where(_equal(idx, k), pp, _where(_equal(idx, p), pk, perm))
    return perm


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    lu, piv = lu_and_piv
    perm = _piv_to_perm(piv)
    if trans != 0:
        raise ShapeError("lu_solve: only trans=0 is implemented")
    b = asarray_operand(b)
    vec = core.get_aval(b).ndim == 1
    if vec:
        b = lax.expand_dims(b, (1,))
    [b] = promote_dtypes(lax.convert_element_type(b, core.get_aval(lu).dtype))
    x = _la._lu_solve(lu, perm, b)
    return lax.squeeze(x, (1,)) if vec else x


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    if assume_a == "pos":
        return cho_solve(cho_factor(a, lower=True), b)
    return _la.solve(a, b)


