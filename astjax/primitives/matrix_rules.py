"""The batched-matrix helpers of the factorization JVP rules (primitives/factorizations.py)
and of `jnp.linalg`'s row permutations: products, transposes, the identity, diagonals,
triangles, row permutations, written with the `lax` wrappers of earlier families on
matrices whose leading dimensions are batch. Each is spelled as JAX 0.10.2's rules spell
it (`lax._eye` as iota == iota, `_extract_diagonal` / `_construct_diagonal` as a gather /
a scatter), so the rules' results round as JAX's. No primitive."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from .base import lax_ops
from .base import tangent_aval as _aval
from .gather import GatherDimensionNumbers, GatherScatterMode
from .scatter import ScatterDimensionNumbers


def _nd(x):
    return _aval(x).ndim


def _mm(a, b):
    """a @ b over the trailing two dimensions, leading dimensions batch."""
    L = lax_ops()
    nb = _nd(a) - 2
    batch = tuple(range(nb))
    return L.dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)),
                         precision=L.Precision.HIGHEST)


def _T(x):
    n = _nd(x)
    return lax_ops().transpose(x, tuple(range(n - 2)) + (n - 1, n - 2))


def _is_complex(x):
    return dtypes.issubdtype(_aval(x).dtype, np.complexfloating)


def _H(x):
    t = _T(x)
    return lax_ops().conj(t) if _is_complex(x) else t


def _const(x, value, shape=None):
    """A constant of x's dtype broadcast to `shape` (x's shape by default); `value`
    may be an array of trailing dimensions."""
    a = _aval(x)
    shape = a.shape if shape is None else tuple(shape)
    v = np.asarray(value, a.dtype)
    return lax_ops().broadcast_in_dim(v, shape, tuple(range(len(shape) - v.ndim, len(shape))))


def _tri(x, lower, k=0):
    """The lower (j <= i + k) or upper (j >= i + k) triangle of x's matrices."""
    m, n = _aval(x).shape[-2:]
    mask = np.tri(m, n, k, dtype=bool) if lower else ~np.tri(m, n, k - 1, dtype=bool)
    L = lax_ops()
    return L.select(L.broadcast_in_dim(mask, _aval(x).shape, (_nd(x) - 2, _nd(x) - 1)), x,
                    _const(x, 0))


def _eye(x, n=None):
    """The identity of x's dtype, (..., n, n) with x's batch dimensions, computed as
    JAX's `lax._eye` (iota == iota, converted): XLA simplifies a literal identity
    matrix otherwise, and the rule's results then round otherwise than JAX's."""
    L = lax_ops()
    n = _aval(x).shape[-1] if n is None else n
    eye = L.convert_element_type(L.eq(L.broadcasted_iota(np.int32, (n, n), 0),
                                      L.broadcasted_iota(np.int32, (n, n), 1)), _aval(x).dtype)
    shape = _aval(x).shape[:-2] + (n, n)
    return eye if len(shape) == 2 else L.broadcast_in_dim(eye, shape, (len(shape) - 2,
                                                                       len(shape) - 1))


def _diag_indices(n):
    """[[0, 0], [1, 1], ...]: the (row, column) of each of n diagonal elements."""
    return lax_ops().broadcasted_iota(np.int32, (n, 2), 0)


def _diag(x):
    """The diagonal of square matrices x: (..., n), gathered (JAX's `_extract_diagonal`:
    a mask-and-sum, whose sum XLA fuses into the reductions after it, rounds otherwise)."""
    L = lax_ops()
    nb, n = _nd(x) - 2, _aval(x).shape[-1]
    dn = GatherDimensionNumbers(offset_dims=tuple(range(nb)), collapsed_slice_dims=(nb, nb + 1),
                                start_index_map=(nb, nb + 1))
    return L.gather(x, _diag_indices(n), dn, _aval(x).shape[:-2] + (1, 1),
                    mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def _diag_matrix(d):
    """Square matrices with diagonal d (..., n), zero elsewhere, scattered into zeros
    (JAX's `_construct_diagonal`)."""
    L = lax_ops()
    a = _aval(d)
    nb, n = a.ndim - 1, a.shape[-1]
    dn = ScatterDimensionNumbers(update_window_dims=tuple(range(nb)),
                                 inserted_window_dims=(nb, nb + 1),
                                 scatter_dims_to_operand_dims=(nb, nb + 1))
    return L.scatter(L.full(a.shape + (n,), 0, a.dtype), _diag_indices(n), d, dn,
                     mode=GatherScatterMode.FILL_OR_DROP)


def _as_row(w, shape):
    """w (..., n) as w[..., None, :] broadcast to `shape` (..., m, n)."""
    nd = len(shape)
    return lax_ops().broadcast_in_dim(w, shape, tuple(range(nd - 2)) + (nd - 1,))


def _as_col(w, shape):
    """w (..., m) as w[..., :, None] broadcast to `shape` (..., m, n)."""
    nd = len(shape)
    return lax_ops().broadcast_in_dim(w, shape, tuple(range(nd - 2)) + (nd - 2,))


def _cast(x, dtype):
    return lax_ops().convert_element_type(x, dtype) if _aval(x).dtype != dtype else x


def _slice(x, rows=None, cols=None, row0=0, col0=0):
    a = _aval(x)
    m, n = a.shape[-2:]
    rows = m if rows is None else rows
    cols = n if cols is None else cols
    return lax_ops().slice(x, (0,) * (a.ndim - 2) + (row0, col0),
                           a.shape[:-2] + (row0 + rows, col0 + cols))


def permute_rows(x, perm):
    """x[..., perm, :] for x (..., m, n) and perm (..., m) int32 in [0, m) with the same
    batch dimensions: one gather of whole rows (no one-hot product: that costs m^2 n
    and rounds)."""
    L = lax_ops()
    nb = _nd(x) - 2
    batch = tuple(range(nb))
    dn = GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                start_index_map=(nb,), operand_batching_dims=batch,
                                start_indices_batching_dims=batch)
    rows = L.reshape(perm, _aval(perm).shape + (1,))
    return L.gather(x, rows, dn, (1,) * (nb + 1) + (_aval(x).shape[-1],),
                    indices_are_sorted=False, unique_indices=False,
                    mode=GatherScatterMode.PROMISE_IN_BOUNDS)
