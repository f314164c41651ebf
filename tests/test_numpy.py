"""`astjax.numpy` against NumPy: values, dtype and shape, eagerly and under `jit`.

Each case is `(name, fn, args)` where `fn(m, *args)` is called with `m = numpy` for
the expected value and `m = astjax.numpy` for the result. Expected dtypes are
NumPy's, canonicalized to 32 bits as JAX does without x64. Under `jit`, cases are
evaluated in groups (several functions per compiled program) to keep the suite fast.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import dtypes
from astjax.errors import AstjaxError, AxisError, NotImplementedInAstjaxError, ShapeError

rng = np.random.RandomState(0)
F = rng.randn(3, 4).astype(np.float32)
G = rng.randn(3, 4).astype(np.float32)
V = rng.randn(5).astype(np.float32)
W = np.abs(rng.randn(5)).astype(np.float32) + 0.1
P = (np.abs(rng.randn(3, 4)) + 0.5).astype(np.float32)
U = rng.uniform(-0.9, 0.9, (3, 4)).astype(np.float32)
I = rng.randint(-5, 6, (3, 4)).astype(np.int32)
J = rng.randint(1, 7, (3, 4)).astype(np.int32)
B = rng.rand(3, 4) > 0.5
N = F.copy()
N[0, 1] = np.nan
N[2, 3] = np.nan
S = np.sort(V)
A = (rng.randn(4, 4) + 4 * np.eye(4)).astype(np.float32)
Z = np.array([0, 1, 0, 2, 3, 0], np.int32)
K = np.array([3, 1, 2, 3, 1, 5, 2], np.int32)

CASES = [
    # creation
    ("zeros", lambda m: m.zeros((2, 3), m.int32), ()),
    ("ones_like", lambda m, x: m.ones_like(x), (F,)),
    ("full", lambda m: m.full((2, 2), 7.0), ()),
    ("full_like", lambda m, x: m.full_like(x, 3), (I,)),
    ("arange", lambda m: m.arange(2, 11, 3), ()),
    ("arange_f", lambda m: m.arange(0.0, 1.0, 0.25), ()),
    ("linspace", lambda m: m.linspace(0.0, 1.0, 7), ()),
    ("logspace", lambda m: m.logspace(0.0, 2.0, 5), ()),
    ("geomspace", lambda m: m.geomspace(1.0, 100.0, 5), ()),
    ("eye", lambda m: m.eye(3, 4, 1), ()),
    ("identity", lambda m: m.identity(3), ()),
    ("tri", lambda m: m.tri(3, 4, -1), ()),
    ("tril", lambda m, x: m.tril(x), (F,)),
    ("triu", lambda m, x: m.triu(x, 1), (F,)),
    ("meshgrid", lambda m, x: m.meshgrid(x, x[:3]), (V,)),
    ("indices", lambda m: m.indices((2, 3)), ()),
    ("tril_indices", lambda m: m.tril_indices(3), ()),
    ("triu_indices", lambda m: m.triu_indices(3, 1, 4), ()),
    ("diag_indices", lambda m: m.diag_indices(3), ()),
    ("vander", lambda m, x: m.vander(x, 3), (V,)),
    ("fromfunction", lambda m: m.fromfunction(lambda i, j: i * 10 + j, (2, 3)), ()),
    ("hamming", lambda m: m.hamming(5), ()),
    ("blackman", lambda m: m.blackman(5), ()),
    # elementwise
    ("sin", lambda m, x: m.sin(x), (F,)),
    ("arctan2", lambda m, x, y: m.arctan2(x, y), (F, G)),
    ("hypot", lambda m, x, y: m.hypot(x, y), (F, G)),
    ("exp2", lambda m, x: m.exp2(x), (F,)),
    ("log10", lambda m, x: m.log10(x), (P,)),
    ("log2", lambda m, x: m.log2(x), (P,)),
    ("logaddexp", lambda m, x, y: m.logaddexp(x, y), (F, G)),
    ("arcsin", lambda m, x: m.arcsin(x), (U,)),
    ("arctanh", lambda m, x: m.arctanh(x), (U,)),
    ("cbrt", lambda m, x: m.cbrt(x), (F,)),
    ("power", lambda m, x, y: m.power(x, y), (P, G)),
    ("power_int", lambda m, x: m.power(x, 3), (I,)),
    ("float_power", lambda m, x: m.float_power(x, 2), (P,)),
    ("square", lambda m, x: m.square(x), (I,)),
    ("reciprocal", lambda m, x: m.reciprocal(x), (P,)),
    ("deg2rad", lambda m, x: m.deg2rad(x), (F,)),
    ("rad2deg", lambda m, x: m.rad2deg(x), (F,)),
    ("sinc", lambda m, x: m.sinc(x), (F,)),
    ("floor_divide", lambda m, x, y: m.floor_divide(x, y), (I, J)),
    ("remainder", lambda m, x, y: m.remainder(x, y), (I, J)),
    ("fmod", lambda m, x, y: m.fmod(x, y), (I, J)),
    ("copysign", lambda m, x, y: m.copysign(x, y), (F, G)),
    ("heaviside", lambda m, x: m.heaviside(x, 0.5), (F,)),
    ("rint", lambda m, x: m.rint(x * 3), (F,)),
    ("round", lambda m, x: m.round(x, 2), (F,)),
    ("trunc", lambda m, x: m.trunc(x * 3), (F,)),
    ("fmax", lambda m, x, y: m.fmax(x, y), (N, F)),
    ("clip", lambda m, x: m.clip(x, -0.5, 0.5), (F,)),
    ("where", lambda m, c, x, y: m.where(c, x, y), (B, F, G)),
    ("ldexp", lambda m, x, e: m.ldexp(x, e), (F, I)),
    ("frexp", lambda m, x: m.frexp(x), (F,)),
    ("modf", lambda m, x: m.modf(x * 3), (F,)),
    ("gcd", lambda m, x, y: m.gcd(x, y), (I, J)),
    ("lcm", lambda m, x, y: m.lcm(x, y), (I, J)),
    ("angle", lambda m, x: m.angle(x), (F,)),
    ("nan_to_num", lambda m, x: m.nan_to_num(x, nan=-1.0), (N,)),
    ("spacing", lambda m, x: m.spacing(x), (F,)),
    ("i0", lambda m, x: m.i0(x), (F,)),
    ("bitwise_count", lambda m, x: m.bitwise_count(x), (I,)),
    ("signbit", lambda m, x: m.signbit(x), (F,)),
    # comparison and logic
    ("isclose", lambda m, x, y: m.isclose(x, x + 1e-7 * y), (F, G)),
    ("allclose", lambda m, x, y: m.allclose(x, x + 1e-3 * y), (F, G)),
    ("array_equal", lambda m, x: m.array_equal(x, x), (F,)),
    ("array_equal_nan", lambda m, x: m.array_equal(x, x, equal_nan=True), (N,)),
    ("array_equiv", lambda m, x: m.array_equiv(x, x[0]), (F,)),
    ("isin", lambda m, x: m.isin(x, m.array([1, 2, -3])), (I,)),
    ("select", lambda m, x: m.select([x < -1, x > 1], [x, x * 2], 0.5), (F,)),
    ("piecewise", lambda m, x: m.piecewise(x, [x < 0, x >= 0], [lambda t: -t, lambda t: t * 2]),
     (F,)),
    ("logical_xor", lambda m, x, y: m.logical_xor(x > 0, y > 0), (F, G)),
    ("isnan", lambda m, x: m.isnan(x), (N,)),
    ("count_nonzero", lambda m, x: m.count_nonzero(x, axis=0), (Z.reshape(2, 3),)),
    # reductions
    ("sum", lambda m, x: m.sum(x, axis=1, keepdims=True), (F,)),
    ("sum_where", lambda m, x, w: m.sum(x, where=w), (F, B)),
    ("prod", lambda m, x: m.prod(x, axis=0), (P,)),
    ("mean", lambda m, x: m.mean(x, axis=(0, 1)), (F,)),
    ("var", lambda m, x: m.var(x, axis=0, ddof=1), (F,)),
    ("std", lambda m, x: m.std(x), (F,)),
    ("max", lambda m, x: m.max(x, axis=0), (I,)),
    ("ptp", lambda m, x: m.ptp(x, axis=1), (F,)),
    ("all", lambda m, x: m.all(x, axis=0), (B,)),
    ("nansum", lambda m, x: m.nansum(x, axis=0), (N,)),
    ("nanprod", lambda m, x: m.nanprod(x), (N,)),
    ("nanmax", lambda m, x: m.nanmax(x, axis=1), (N,)),
    ("nanmin", lambda m, x: m.nanmin(x), (N,)),
    ("nanmean", lambda m, x: m.nanmean(x, axis=0), (N,)),
    ("nanvar", lambda m, x: m.nanvar(x, axis=1), (N,)),
    ("nanstd", lambda m, x: m.nanstd(x), (N,)),
    ("average", lambda m, x, w: m.average(x, axis=1, weights=w[:4]), (F, W)),
    ("average_plain", lambda m, x: m.average(x, axis=0), (F,)),
    ("median", lambda m, x: m.median(x, axis=1), (F,)),
    ("median_all", lambda m, x: m.median(x), (F,)),
    ("quantile", lambda m, x: m.quantile(x, 0.3, axis=0), (F,)),
    ("quantile_vec", lambda m, x: m.quantile(x, m.array([0.1, 0.5, 0.9], dtype=m.float32),
                                             axis=1, keepdims=True), (F,)),
    ("quantile_lower", lambda m, x: m.quantile(x, 0.3, method="lower"), (F,)),
    ("quantile_nearest", lambda m, x: m.quantile(x, 0.4, method="nearest"), (V,)),
    ("percentile", lambda m, x: m.percentile(x, 75.0), (F,)),
    ("nanmedian", lambda m, x: m.nanmedian(x, axis=1), (N,)),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.25, axis=0), (N,)),
    ("nanpercentile", lambda m, x: m.nanpercentile(x, 60.0), (N,)),
    ("median_nan", lambda m, x: m.median(x, axis=1), (N,)),
    ("cov", lambda m, x: m.cov(x), (F,)),
    ("cov_rowvar", lambda m, x: m.cov(x, rowvar=False, ddof=0), (F,)),
    ("corrcoef", lambda m, x: m.corrcoef(x), (F,)),
    ("diff", lambda m, x: m.diff(x, n=2, axis=1), (F,)),
    ("diff_prepend", lambda m, x: m.diff(x, prepend=0.0), (V,)),
    ("ediff1d", lambda m, x: m.ediff1d(x, to_begin=m.array([9.0], m.float32)), (V,)),
    ("gradient", lambda m, x: m.gradient(x, 0.5), (V,)),
    ("gradient2", lambda m, x: m.gradient(x), (F,)),
    ("trapezoid", lambda m, x: m.trapezoid(x, dx=0.5), (F,)),
    ("convolve", lambda m, x, y: m.convolve(x, y[:3]), (V, W)),
    ("convolve_same", lambda m, x, y: m.convolve(x, y[:3], mode="same"), (V, W)),
    ("convolve_valid", lambda m, x, y: m.convolve(x[:2], y, mode="valid"), (V, W)),
    ("correlate", lambda m, x, y: m.correlate(x, y[:3]), (V, W)),
    ("correlate_full", lambda m, x, y: m.correlate(x, y[:2], mode="full"), (V, W)),
    # searching / counting / sets
    ("searchsorted", lambda m, s, v: m.searchsorted(s, v), (S, V)),
    ("searchsorted_r", lambda m, s, v: m.searchsorted(s, v, side="right"), (S, S)),
    ("digitize", lambda m, x, s: m.digitize(x, s), (F, S)),
    ("bincount", lambda m, x: m.bincount(x, length=7) if m is jnp else np.bincount(x, minlength=7),
     (K,)),
    ("bincount_w", lambda m, x, w: m.bincount(x, weights=w[:7] if m is np else w[:7], length=6)
     if m is jnp else np.bincount(x, weights=w, minlength=6), (K, np.arange(7.0, dtype=np.float32))),
    ("histogram", lambda m, x: _inexact_counts(m, m.histogram(x, bins=4)), (F,)),
    ("histogram_range",
     lambda m, x: _inexact_counts(m, m.histogram(x, bins=3, range=(-1.0, 1.0))), (F,)),
    ("interp", lambda m, x, xp, fp: m.interp(x, xp, fp), (F, S, W)),
    ("unique_size", lambda m, x: m.unique(x, size=4) if m is jnp else np.unique(x), (K,)),
    ("unique_pad", lambda m, x: m.unique(x, size=6, fill_value=-1) if m is jnp else
     np.concatenate([np.unique(x), [-1, -1]]).astype(np.int32), (K,)),
    ("unique_counts", lambda m, x: m.unique(x, return_counts=True, size=4) if m is jnp else
     np.unique(x, return_counts=True), (K,)),
    ("unique_index", lambda m, x: m.unique(x, return_index=True, size=4) if m is jnp else
     np.unique(x, return_index=True), (K,)),
    ("unique_inverse", lambda m, x: m.unique(x, return_inverse=True, size=4)[1] if m is jnp else
     np.unique(x, return_inverse=True)[1].reshape(x.shape), (K,)),
    ("union1d", lambda m, x, y: m.union1d(x, y, size=5) if m is jnp else np.union1d(x, y),
     (K, Z)),
    ("intersect1d", lambda m, x, y: m.intersect1d(x, y, size=3) if m is jnp else
     np.intersect1d(x, y), (K, Z)),
    ("setdiff1d", lambda m, x, y: m.setdiff1d(x, y, size=1) if m is jnp else np.setdiff1d(x, y),
     (K, Z)),
    # shapes
    ("reshape", lambda m, x: m.reshape(x, (2, -1)), (F,)),
    ("ravel_F", lambda m, x: m.ravel(x, order="F"), (F,)),
    ("moveaxis", lambda m, x: m.moveaxis(x[None], 0, -1), (F,)),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, 1), (F,)),
    ("squeeze", lambda m, x: m.squeeze(x[:, :1]), (F,)),
    ("expand_dims", lambda m, x: m.expand_dims(x, (0, 2)), (F,)),
    ("stack", lambda m, x, y: m.stack([x, y], axis=1), (F, G)),
    ("vstack", lambda m, x, y: m.vstack([x, y]), (F, G)),
    ("hstack", lambda m, x, y: m.hstack([x, y]), (F, G)),
    ("dstack", lambda m, x, y: m.dstack([x, y]), (F, G)),
    ("column_stack", lambda m, x: m.column_stack([x, x]), (V,)),
    ("split", lambda m, x: m.split(x, [1, 3], axis=1), (F,)),
    ("array_split", lambda m, x: m.array_split(x, 3), (V,)),
    ("tile", lambda m, x: m.tile(x, (2, 1, 2)), (F,)),
    ("repeat", lambda m, x: m.repeat(x, 2, axis=0), (F,)),
    ("flip", lambda m, x: m.flip(x, 1), (F,)),
    ("rot90", lambda m, x: m.rot90(x), (F,)),
    ("roll", lambda m, x: m.roll(x, 2, axis=1), (F,)),
    ("pad", lambda m, x: m.pad(x, ((1, 0), (2, 1))), (F,)),
    ("pad_edge", lambda m, x: m.pad(x, 1, mode="edge"), (F,)),
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 3, 4)), (F,)),
    ("broadcast_arrays", lambda m, x, y: m.broadcast_arrays(x, y[:1]), (F, G)),
    ("append", lambda m, x, y: m.append(x, y), (F, V)),
    ("append_axis", lambda m, x, y: m.append(x, y, axis=0), (F, G)),
    ("insert", lambda m, x: m.insert(x, 2, 9.0), (V,)),
    ("insert_list", lambda m, x: m.insert(x, [1, 3], 7.0), (V,)),
    ("insert_axis", lambda m, x: m.insert(x, 1, 5.0, axis=1), (F,)),
    ("delete", lambda m, x: m.delete(x, np.array([0, 2]), axis=1), (F,)),
    ("delete_flat", lambda m, x: m.delete(x, 3), (F,)),
    ("unstack", lambda m, x: tuple(m.unstack(x)) if m is jnp else tuple(x), (F,)),
    ("rollaxis", lambda m, x: m.rollaxis(x[None], 2), (F,)),
    ("resize", lambda m, x: m.resize(x, (3, 3)), (V,)),
    ("block", lambda m, x, y: m.block([[x, y], [y, x]]), (F, G)),
    ("diagflat", lambda m, x: m.diagflat(x[:3], 1), (V,)),
    ("diag", lambda m, x: m.diag(x), (A,)),
    ("diag_v", lambda m, x: m.diag(x, -1), (V,)),
    ("diagonal", lambda m, x: m.diagonal(x, 1), (F,)),
    ("trace", lambda m, x: m.trace(x), (A,)),
    ("fill_diagonal", lambda m, x: m.fill_diagonal(x, 0.0, inplace=False) if m is jnp else
     _np_fill_diag(x), (A,)),
    ("choose", lambda m, c, x, y: m.choose(c, [x, y], mode="clip"), (B.astype(np.int32), F, G)),
    ("compress", lambda m, x: m.compress(np.array([True, False, True]), x, axis=0), (F,)),
    ("extract", lambda m, x: m.extract(np.array([[1, 0, 0, 1]] * 3, bool), x), (F,)),
    ("ix_", lambda m: m.ix_(m.array([0, 1]), m.array([2, 3, 4])), ()),
    ("unravel_index", lambda m, i: m.unravel_index(i, (3, 4)), (np.array([0, 5, 11], np.int32),)),
    # mode='clip': 'raise' reads the indices, so jit refuses it as JAX does (eager
    # 'raise' is in test_jnp_semantics.py)
    ("ravel_multi_index", lambda m, i, j: m.ravel_multi_index((i, j), (3, 4), mode="clip"),
     (np.array([0, 1, 2], np.int32), np.array([3, 0, 1], np.int32))),
    ("apply_along_axis", lambda m, x: m.apply_along_axis(lambda r: r.sum() * 2, 1, x), (F,)),
    ("apply_over_axes", lambda m, x: m.apply_over_axes(m.sum, x, [0, 1]), (F,)),
    ("cross", lambda m, x, y: m.cross(x[:, :3], y[:, :3]), (F, G)),
    ("polyval", lambda m, p, x: m.polyval(p, x), (V[:3], F)),
    ("polyadd", lambda m, p, q: m.polyadd(p, q), (V[:3], W)),
    ("polysub", lambda m, p, q: m.polysub(p, q), (V[:3], W)),
    ("polymul", lambda m, p, q: m.polymul(p, q), (V[:3], W[:2])),
    ("polyder", lambda m, p: m.polyder(p, 2), (V,)),
    ("polyint", lambda m, p: m.polyint(p), (V,)),
    ("r_", lambda m, x: m.r_[x, 0.0, 1:3], (V,)),
    ("c_", lambda m, x: m.c_[x, x], (V,)),
    ("mgrid", lambda m: m.mgrid[0:3, 0:2], ()),
    ("partition", lambda m, x: m.sort(m.partition(x, 2)), (V,)),
    ("poly", lambda m, z: m.poly(z), (V[:3],)),
    ("polyfit", lambda m, x, y: m.polyfit(x, 2 * x * x - y * 0.01, 2), (S, V)),
    ("unwrap", lambda m, x: m.unwrap(m.cumsum(x * 3)), (W,)),
    ("vectorize", lambda m, x, y: m.vectorize(lambda a, b: a * b + 1)(x, y), (V, W)),
    # products
    ("dot", lambda m, x, y: m.dot(x, y.T), (F, G)),
    ("matmul", lambda m, x, y: m.matmul(x[None], y.T), (F, G)),
    ("outer", lambda m, x, y: m.outer(x, y), (V, W)),
    ("inner", lambda m, x, y: m.inner(x, y), (F, G)),
    ("tensordot", lambda m, x, y: m.tensordot(x, y, axes=([1], [1])), (F, G)),
    ("einsum", lambda m, x, y: m.einsum("ij,kj->ik", x, y), (F, G)),
    ("einsum_ellipsis", lambda m, x, y: m.einsum("...j,j->...", x[None], y[0]), (F, G)),
    ("kron", lambda m, x, y: m.kron(x[:2, :2], y[:2, :3]), (F, G)),
    ("vdot", lambda m, x, y: m.vdot(x, y), (F, G)),
    ("vecdot", lambda m, x, y: m.vecdot(x, y) if m is jnp else np.sum(x * y, axis=-1), (F, G)),
    # linalg
    ("det", lambda m, a: m.linalg.det(a), (A,)),
    ("slogdet", lambda m, a: tuple(m.linalg.slogdet(a)), (A,)),
    ("inv", lambda m, a: m.linalg.inv(a), (A,)),
    ("solve", lambda m, a, b: m.linalg.solve(a, b), (A, F.T)),
    ("solve_vec", lambda m, a, b: m.linalg.solve(a, b), (A, V[:4])),
    ("cholesky", lambda m, a: m.linalg.cholesky(a @ a.T), (A,)),
    ("qr", lambda m, a: tuple(m.linalg.qr(a)), (F.T,)),
    ("norm", lambda m, x: m.linalg.norm(x), (F,)),
    ("norm_1", lambda m, x: m.linalg.norm(x, 1), (A,)),
    ("norm_axis", lambda m, x: m.linalg.norm(x, 3, axis=1), (F,)),
    ("matrix_power", lambda m, a: m.linalg.matrix_power(a, 3), (A,)),
    ("matrix_power_neg", lambda m, a: m.linalg.matrix_power(a, -2), (A,)),
    ("multi_dot", lambda m, a, x: m.linalg.multi_dot([a, a, x]), (A, F.T)),
    ("eigvalsh", lambda m, a: m.linalg.eigvalsh(a + a.T), (A,)),
    ("eigh_reconstruct", lambda m, a: (lambda w, v: (v * w) @ v.T)(*m.linalg.eigh(a @ a.T)), (F,)),
    ("eigh_odd", lambda m, a: m.linalg.eigh(a[:3, :3] + a[:3, :3].T)[0], (A,)),
    ("svdvals", lambda m, a: m.linalg.svd(a, compute_uv=False), (F,)),
    ("svd_reconstruct", lambda m, a: (lambda u, s, vh: (u * s) @ vh)(
        *m.linalg.svd(a, full_matrices=False)), (F,)),
    ("pinv", lambda m, a: m.linalg.pinv(a), (F,)),
    ("matrix_rank", lambda m, a: m.linalg.matrix_rank(a), (F,)),
    ("norm_2", lambda m, a: m.linalg.norm(a, 2), (F,)),
    ("norm_nuc", lambda m, a: m.linalg.norm(a, "nuc"), (F,)),
    ("cond", lambda m, a: m.linalg.cond(a), (A,)),
    ("lstsq", lambda m, a, b: m.linalg.lstsq(a, b, rcond=None)[0], (F.T, V[:4])),
    ("solve_loop", lambda m, a: m.linalg.solve(a, a[0]), (np.kron(A, A) + 20 * np.eye(16, dtype=np.float32),)),
]


def _np_fill_diag(x):
    y = x.copy()
    np.fill_diagonal(y, 0.0)
    return y


def _inexact_counts(m, result):
    """NumPy's histogram counts as JAX 0.10.2 types them: inexact, like the data."""
    counts, edges = result
    return (np.asarray(counts, np.float64), edges) if m is np else (counts, edges)


def _canon(dt):
    dt = np.dtype(dt)
    return dtypes.canonicalize(dt)


def _check(name, got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), name
        for g, w in zip(got, want):
            _check(name, g, w)
        return
    want = np.asarray(want)
    got_np = np.asarray(got)
    assert got_np.shape == want.shape, f"{name}: shape {got_np.shape} != {want.shape}"
    assert np.dtype(got.dtype) == _canon(want.dtype), \
        f"{name}: dtype {got.dtype} != {_canon(want.dtype)}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got_np, want, err_msg=name)
    else:
        np.testing.assert_allclose(got_np.astype(np.float64), want.astype(np.float64),
                                   rtol=2e-5, atol=2e-5, err_msg=name, equal_nan=True)


def _expected(fn, args):
    with np.errstate(all="ignore"):
        return fn(np, *args)


@pytest.mark.parametrize("name,fn,args", CASES, ids=[c[0] for c in CASES])
def test_eager(name, fn, args):
    _check(name, fn(jnp, *args), _expected(fn, args))


_GROUP = 40


@pytest.mark.parametrize("start", range(0, len(CASES), _GROUP))
def test_jit_group(start):
    """Several functions per compiled program: one jit per group of cases."""
    group = CASES[start:start + _GROUP]

    def all_cases(*flat_args):
        outs, k = [], 0
        for _, fn, args in group:
            outs.append(fn(jnp, *flat_args[k:k + len(args)]))
            k += len(args)
        return tuple(outs)
    flat = [a for _, _, args in group for a in args]
    got = astjax.jit(all_cases)(*flat)
    for (name, fn, args), g in zip(group, got):
        _check(name, g, _expected(fn, args))


# ------------------------------------------------------------- grad and vmap

def _fd(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


GRAD_CASES = [
    ("det", lambda m, a: m.linalg.det(a), A[:2, :2]),
    ("slogdet", lambda m, a: m.linalg.slogdet(a)[1], A[:2, :2]),
    ("solve", lambda m, a: m.sum(m.linalg.solve(a, a[0] + 1.0)), A[:2, :2]),
    ("inv", lambda m, a: m.sum(m.linalg.inv(a) * a), A[:2, :2]),
    ("cholesky", lambda m, a: m.sum(m.linalg.cholesky(a @ a.T)), A[:3, :3]),
    ("quantile", lambda m, x: m.quantile(x, 0.3), F),
    ("median", lambda m, x: m.sum(m.median(x, axis=1)), F),
    ("nanvar", lambda m, x: m.nanvar(x), F),
    ("cov", lambda m, x: m.sum(m.cov(x)), F),
    ("norm", lambda m, x: m.linalg.norm(x), F),
    ("hypot_logaddexp", lambda m, x: m.sum(m.logaddexp(x, m.hypot(x, 1.0))), F),
    ("interp", lambda m, x: m.sum(m.interp(x, S, W)), F * 0.5),
    ("convolve", lambda m, x: m.sum(m.convolve(x, W) ** 2), V),
]


@pytest.mark.parametrize("name,fn,x", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grad_matches_finite_differences(name, fn, x):
    g = astjax.jit(astjax.grad(lambda a: fn(jnp, a)))(x)
    want = _fd(lambda a: fn(np, a), x)
    np.testing.assert_allclose(np.asarray(g), want, rtol=5e-3, atol=5e-3, err_msg=name)


def test_vmap():
    f = astjax.vmap(lambda x: (jnp.median(x), jnp.searchsorted(S, x), jnp.isclose(x, 0.5),
                               jnp.nanmean(x), jnp.percentile(x, 30.0)))
    med, ss, ic, nm, pc = f(N)
    np.testing.assert_allclose(np.asarray(med), np.median(N, axis=1), equal_nan=True)
    np.testing.assert_array_equal(np.asarray(ss), np.searchsorted(S, N))
    np.testing.assert_allclose(np.asarray(nm), np.nanmean(N, axis=1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(pc), np.percentile(N, 30.0, axis=1), rtol=1e-5)
    ab = np.stack([A, A.T, A + 1])
    np.testing.assert_allclose(np.asarray(astjax.vmap(jnp.linalg.det)(ab)),
                               np.linalg.det(ab), rtol=1e-4)
    keys = astjax.random.split(astjax.random.PRNGKey(0), 3)
    batched = astjax.vmap(lambda k: astjax.random.normal(k, (2,)))(keys)
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(batched[i]),
                                      np.asarray(astjax.random.normal(keys[i], (2,))))


# ------------------------------------------------------------------------ dtypes

def test_weak_scalar_promotion():
    x = jnp.ones(3, jnp.float16)
    assert (x * 2).dtype == jnp.float16
    assert (x * 2.5).dtype == jnp.float16
    assert (jnp.ones(3, jnp.int8) + 1).dtype == jnp.int8
    assert jnp.result_type(jnp.bfloat16, jnp.float16) == jnp.float32
    assert jnp.promote_types(jnp.uint8, jnp.int8) == jnp.int16
    assert jnp.promote_types(jnp.int64, jnp.float16) == jnp.float16


@pytest.mark.parametrize("dt", [np.float16, dtypes.bfloat16, np.complex64, np.int8, np.uint16])
def test_small_dtypes(dt):
    x = np.arange(6).reshape(2, 3).astype(dt)
    f = astjax.jit(lambda a: (a + a, jnp.sum(a, axis=0), a.T))
    s, r, t = f(x)
    np.testing.assert_array_equal(np.asarray(s), x + x)
    assert s.dtype == np.dtype(dt) and t.shape == (3, 2)


def test_x64_warning_and_mode():
    with pytest.warns(UserWarning, match="Explicitly requested dtype"):
        z = jnp.zeros(2, jnp.float64)
    assert z.dtype == jnp.float32
    astjax.config.update("jax_enable_x64", True)
    try:
        assert jnp.zeros(2, jnp.float64).dtype == jnp.float64
        assert jnp.arange(3).dtype == jnp.int64
        assert (jnp.ones(2) * 2).dtype == jnp.float64
        y = astjax.jit(lambda a: a * 2)(np.ones(2, np.float64))
        assert y.dtype == jnp.float64
    finally:
        astjax.config.update("jax_enable_x64", False)
    assert jnp.arange(3).dtype == jnp.int32


# ------------------------------------------------------------------------ errors

def test_unknown_attribute():
    # a name JAX lacks too: AttributeError as JAX's, not "not implemented"
    with pytest.raises(AttributeError, match="no attribute 'no_such_function'") as e:
        jnp.no_such_function  # noqa: B018
    assert not isinstance(e.value, NotImplementedError)
    with pytest.raises(NotImplementedInAstjaxError):
        jnp.linalg.no_such_function  # noqa: B018


def test_bad_axis_is_located():
    def f(x):
        return jnp.sum(x, axis=3)
    with pytest.raises(ValueError) as e:  # JAX: ValueError
        astjax.jit(f)(F)
    assert isinstance(e.value, AxisError)
    assert "axis 3" in str(e.value) and "test_numpy.py" in str(e.value)


def test_bad_shapes():
    from astjax.errors import ShapeValueError
    with pytest.raises(ShapeValueError):  # ranks differ: JAX's ValueError
        jnp.add(F, V)
    with pytest.raises(ShapeError):  # one rank: the lax primitive's TypeError, as JAX
        jnp.add(F, G[:, :3])
    with pytest.raises(ShapeError):
        jnp.reshape(jnp.asarray(F), (5, -1))
    with pytest.raises(ShapeValueError):  # a NumPy operand: NumPy's reshape, as JAX
        jnp.reshape(np.asarray(F), (5, -1))
    with pytest.raises(AstjaxError):
        jnp.linalg.solve(F, G)


def test_bad_dtype():
    from astjax.errors import DTypeError
    with pytest.raises(DTypeError, match="not a valid dtype"):
        jnp.zeros(3, dtype="float33")
    with pytest.raises(DTypeError):
        jnp.ones(2).astype(object)


def test_unique_needs_size_under_jit():
    from astjax.errors import ConcretizationError
    with pytest.raises(ConcretizationError):
        astjax.jit(lambda x: jnp.unique(x))(K)
    np.testing.assert_array_equal(np.asarray(jnp.unique(K)), np.unique(K))


@pytest.mark.parametrize("fn", ["gcd", "lcm"])
def test_gcd_lcm_broadcast_a_scalar_operand(fn):
    a, b = np.array([[12, 18, 0]], np.int32), np.array([[8], [9]], np.int32)
    for x, y in [(a, 8), (12, b), (a, b)]:
        np.testing.assert_array_equal(getattr(jnp, fn)(x, y), getattr(np, fn)(x, y))


# recorded from jax 0.10.2 (x64 off): cumulative_sum widens narrow integers, cumsum does not
@pytest.mark.parametrize("dt,sum_dt,prod_dt,cumsum_dt", [
    ("int8", "int32", "int8", "int8"), ("uint8", "uint32", "uint8", "uint8"),
    ("int16", "int32", "int16", "int16"), ("uint32", "uint32", "uint32", "uint32"),
    ("bool", "int32", "int32", "int32"), ("float16", "float16", "float16", "float16")])
def test_cumulative_sum_dtypes_as_jax(dt, sum_dt, prod_dt, cumsum_dt):
    x = jnp.array([1, 1], dt)
    assert jnp.cumulative_sum(x).dtype == sum_dt
    assert jnp.cumulative_prod(x).dtype == prod_dt
    assert jnp.cumsum(x).dtype == cumsum_dt


def test_ix_of_booleans_raises_as_jax():
    with pytest.raises(NotImplementedError):
        jnp.ix_(jnp.array([True, False, True]))
    np.testing.assert_array_equal(jnp.ix_(jnp.array([0, 2]), jnp.array([1]))[0],
                                  np.ix_(np.array([0, 2]), np.array([1]))[0])
