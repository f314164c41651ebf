"""Cases for the `jax.scipy` submodules beyond linalg / special / stats
(`sparse.linalg`, `optimize`, `integrate`, `interpolate`, `ndimage`, `fft`, `signal`,
`cluster.vq`, `spatial.transform`), and a recorder of JAX's values and derivatives
(see README.md).

`CASES` is a list of (name, function of (module namespace m, *arrays), input names);
each function returns one array or a tuple of them. `m` has `jax`, `jnp`, `lax` and
`jsp` (the scipy package), so the same code runs on JAX and on astjax. Run with JAX
0.10.2: `/work/jaxref/bin/python tests/oracle/record_scipy_modules.py` writes
scipy_modules.json."""
import json
import sys
from pathlib import Path

import numpy as np


def inputs():
    r = np.random.RandomState(13)
    s = r.randn(5, 5)
    out = {
        "spd": (s @ s.T + 5 * np.eye(5)).astype(np.float32),
        "gen": (r.randn(5, 5) + 5 * np.eye(5)).astype(np.float32),
        "b": r.randn(5).astype(np.float32),
        "bs": r.randn(3, 5).astype(np.float32),
        "x0": r.randn(5).astype(np.float32),
        "x2": r.randn(2).astype(np.float32),
        "x2s": r.randn(3, 2).astype(np.float32),
        "c": np.array([1.5, -0.5, 2.0], np.float32),
        "img": r.randn(4, 5).astype(np.float32),
        "xs4": np.cumsum(r.rand(5) + 0.1).astype(np.float32),
        # coordinates inside, on and outside the (4, 5) grid, and half-integers
        "coords": np.stack([np.array([-1.3, -0.5, 0.0, 0.5, 1.25, 2.5, 3.0, 3.7, 4.6, 6.2]),
                            np.array([0.2, 4.0, -2.1, 1.5, 3.5, 2.0, 4.9, 0.0, 1.1, 7.3])]
                           ).astype(np.float32),
        "obs": r.randn(6, 3).astype(np.float32),
        "img3": r.randn(2, 4, 5).astype(np.float32),
        "ker": r.randn(2, 3).astype(np.float32),
        "book": r.randn(4, 3).astype(np.float32),
        "sig": r.randn(2, 37).astype(np.float32),
        "sig2": r.randn(2, 37).astype(np.float32),
        "win7": (0.5 + r.rand(7)).astype(np.float32),
    }
    out["sigT"] = np.ascontiguousarray(out["sig"].T)
    out["quat"] = r.randn(6, 4).astype(np.float32)
    out["rotvec"] = r.randn(6, 3).astype(np.float32)
    out["vec3"] = r.randn(6, 3).astype(np.float32)
    out["ang"] = r.uniform(-3, 3, (6, 3)).astype(np.float32)
    out["wts"] = (0.5 + r.rand(6)).astype(np.float32)
    out["tkey"] = np.array([0.0, 0.5, 1.7, 2.0, 3.1, 4.0], np.float32)
    return out

# ---------------------------------------------------------------- sparse.linalg


def _solver(m, name):
    return getattr(m.jsp.sparse.linalg, name)


def sparse_solve(m, name, a, b, **kw):
    """x of `name`(A, b) with A given as a matrix."""
    return _solver(m, name)(a, b, **kw)[0]


def sparse_solve_fn(m, name, a, b, **kw):
    """x of `name`(A, b) with A given as a function (closing over a)."""
    return _solver(m, name)(lambda v: a @ v, b, **kw)[0]


def _loss(m, f):
    return lambda *xs: m.jnp.sum(m.jnp.sin(f(*xs)))


SPARSE = []
for _name, _mat, _kw in [("cg", "spd", {}), ("bicgstab", "gen", {}), ("gmres", "gen", {}),
                         ("gmres_incr", "gen", {"solve_method": "incremental"})]:
    _solver_name = _name.split("_")[0]
    SPARSE += [
        (f"{_name}", (lambda n, kw: lambda m, a, b: sparse_solve(m, n, a, b, **kw))(
            _solver_name, _kw), [_mat, "b"]),
        (f"{_name}_fn_x0", (lambda n, kw: lambda m, a, b, x0: sparse_solve_fn(
            m, n, a, b, x0=x0, **kw))(_solver_name, _kw), [_mat, "b", "x0"]),
        (f"{_name}_grad", (lambda n, kw: lambda m, a, b: m.jax.grad(
            _loss(m, lambda a, b: sparse_solve_fn(m, n, a, b, **kw)), (0, 1))(a, b))(
            _solver_name, _kw), [_mat, "b"]),
        (f"{_name}_vmap", (lambda n, kw: lambda m, a, bs: m.jax.vmap(
            lambda b: sparse_solve(m, n, a, b, **kw))(bs))(_solver_name, _kw), [_mat, "bs"]),
    ]
SPARSE += [
    ("cg_tree", lambda m, a, b: m.jax.tree_util.tree_leaves(m.jsp.sparse.linalg.cg(
        lambda t: {"u": a @ t["u"], "v": 3.0 * t["v"]}, {"u": b, "v": b[:2]})[0]),
     ["spd", "b"]),
    ("cg_precond", lambda m, a, b: m.jsp.sparse.linalg.cg(
        a, b, M=m.jnp.diag(1.0 / m.jnp.diag(a)), tol=1e-6)[0], ["spd", "b"]),
    ("cg_maxiter", lambda m, a, b: m.jsp.sparse.linalg.cg(a, b, maxiter=2)[0], ["spd", "b"]),
    ("bicgstab_maxiter", lambda m, a, b: m.jsp.sparse.linalg.bicgstab(a, b, maxiter=2)[0],
     ["gen", "b"]),
    ("gmres_restart", lambda m, a, b: m.jsp.sparse.linalg.gmres(a, b, restart=2,
                                                                 maxiter=3)[0], ["gen", "b"]),
    ("gmres_info", lambda m, a, b: m.jsp.sparse.linalg.gmres(a, b)[1], ["gen", "b"]),
    ("cg_complex", lambda m, a, b: m.jsp.sparse.linalg.cg(
        a.astype(np.complex64), (b + 1j * b[::-1]).astype(np.complex64))[0], ["spd", "b"]),
]

# ---------------------------------------------------------------- optimize

LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


def smooth(m, x, c):
    """A well-conditioned convex objective (quadratic plus a quartic)."""
    return m.jnp.sum((x - 1.0) ** 2 * m.jnp.arange(1.0, x.shape[0] + 1)) + \
        0.1 * m.jnp.sum(x ** 4) + c[0] * x[0] * x[1]


def rosen(m, x):
    return m.jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def result(r):
    """Every field of an OptimizeResults (hess_inv when present)."""
    fields = [r.x, r.success, r.status, r.fun, r.jac, r.nfev, r.njev, r.nit]
    return tuple(fields + ([] if r.hess_inv is None else [r.hess_inv]))


def minimize(m, f, x0, method, **kw):
    """Every field of minimize's result; by default with gtol=1e-3, which float32
    reaches cleanly (at 1e-5 whether the last step lands below gtol is rounding)."""
    kw.setdefault("options", {"gtol": 1e-3})
    return result(m.jsp.optimize.minimize(f, x0, method=method, **kw))


OPTIMIZE = [
    ("bfgs_smooth", lambda m, x, c: minimize(m, lambda x, c: smooth(m, x, c), x, "BFGS",
                                             args=(c,)), ["x0", "c"]),
    ("lbfgs_smooth", lambda m, x, c: minimize(m, lambda x, c: smooth(m, x, c), x, LBFGS,
                                              args=(c,)), ["x0", "c"]),
    # JAX's defaults; both line searches fail early here, deterministically
    ("bfgs_rosen", lambda m, x: minimize(m, lambda x: rosen(m, x), x[:3], "BFGS",
                                         options=None), ["x0"]),
    ("lbfgs_rosen", lambda m, x: minimize(m, lambda x: rosen(m, x), x[:3],
                                          "L-BFGS-experimental-do-not-rely-on-this",
                                          options=None), ["x0"]),
    ("bfgs_rosen2", lambda m, x: minimize(m, lambda x: rosen(m, x), x, "bfgs"), ["x2"]),
    ("bfgs_maxiter", lambda m, x, c: minimize(m, lambda x: smooth(m, x, c), x, "BFGS",
                                              options={"maxiter": 2}), ["x0", "c"]),
    ("bfgs_options", lambda m, x, c: minimize(m, lambda x: smooth(m, x, c), x, "BFGS",
                                              options={"gtol": 1e-2, "norm": 2,
                                                       "line_search_maxiter": 5}),
     ["x0", "c"]),
    ("lbfgs_options", lambda m, x, c: minimize(m, lambda x: smooth(m, x, c), x, LBFGS,
                                               options={"maxcor": 2, "gtol": 1e-3,
                                                        "maxfun": 8}), ["x0", "c"]),
    ("lbfgs_complex", lambda m, x, c: minimize(
        m, lambda z: m.jnp.sum(m.jnp.abs(z - (1.0 + 2.0j)) ** 2) + 0.1 * m.jnp.sum(
            m.jnp.abs(z) ** 4), (x + 1j * x[::-1]).astype(np.complex64), LBFGS),
     ["x0", "c"]),
    ("bfgs_vmap", lambda m, xs, c: m.jax.vmap(lambda x: minimize(
        m, lambda x: smooth(m, x, c), x, "BFGS")[:5])(xs), ["x2s", "c"]),
    ("lbfgs_vmap", lambda m, xs, c: m.jax.vmap(lambda x: minimize(
        m, lambda x: smooth(m, x, c), x, LBFGS)[:5])(xs), ["x2s", "c"]),
]

# ---------------------------------------------------------------- integrate, ndimage, vq


def mapc(m, img, coords, order, mode, cval=0.0):
    return m.jsp.ndimage.map_coordinates(img, list(coords), order, mode=mode, cval=cval)


SMALL = [
    ("trapezoid", lambda m, y: m.jsp.integrate.trapezoid(y), ["img"]),
    ("trapezoid_x_axis", lambda m, y, x: m.jsp.integrate.trapezoid(y, x[:4], axis=0),
     ["img", "xs4"]),
    ("trapezoid_dx", lambda m, y: m.jsp.integrate.trapezoid(y, dx=0.25, axis=0), ["img"]),
    ("trapezoid_int", lambda m: m.jsp.integrate.trapezoid(m.jnp.array([1, 2, 3, 2, 3, 2, 1])),
     []),
    ("trapezoid_grad", lambda m, y, x: m.jax.grad(
        lambda y, x: m.jsp.integrate.trapezoid(m.jnp.sin(y), x[:5]).sum(), (0, 1))(y, x),
     ["img", "xs4"]),
    ("vq", lambda m, o, c: m.jsp.cluster.vq.vq(o, c), ["obs", "book"]),
    ("vq_1d", lambda m, o, c: m.jsp.cluster.vq.vq(o[:, 0], c[:, 0]), ["obs", "book"]),
    ("vq_grad", lambda m, o, c: m.jax.grad(
        lambda o, c: m.jsp.cluster.vq.vq(o, c)[1].sum(), (0, 1))(o, c), ["obs", "book"]),
    ("vq_vmap", lambda m, o, c: m.jax.vmap(lambda o: m.jsp.cluster.vq.vq(o, c))(
        m.jnp.stack([o, o[::-1]])), ["obs", "book"]),
]
for _order in (0, 1):
    for _mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
        SMALL.append((f"mapc_{_order}_{_mode}", (lambda o, md: lambda m, img, c: mapc(
            m, img, c, o, md, cval=-1.5))(_order, _mode), ["img", "coords"]))
SMALL += [
    ("mapc_int", lambda m, img, c: mapc(m, (img * 10).astype(np.int32), c, 1, "nearest"),
     ["img", "coords"]),
    ("mapc_grad", lambda m, img, c: m.jax.grad(
        lambda i, c: mapc(m, i, c, 1, "constant").sum(), (0, 1))(img, c), ["img", "coords"]),
    ("mapc_vmap", lambda m, img, c: m.jax.vmap(lambda c: mapc(m, img, c, 1, "reflect"),
                                               in_axes=1)(c), ["img", "coords"]),
]

# ---------------------------------------------------------------- interpolate


def grid(m, img):
    """A (4, 5) grid with uneven spacing on both axes."""
    return (m.jnp.array([0.0, 0.5, 1.5, 2.0]), m.jnp.array([-1.0, 0.0, 0.5, 2.0, 3.0])), img


def rgi(m, img, **kw):
    pts, vals = grid(m, img)
    return m.jsp.interpolate.RegularGridInterpolator(pts, vals, **kw)


def queries(c):
    """(10, 2) query points, some outside the grid."""
    return c.T * np.float32(0.6)


INTERPOLATE = [
    ("rgi_linear", lambda m, img, c: rgi(m, img)(queries(c)), ["img", "coords"]),
    ("rgi_nearest", lambda m, img, c: rgi(m, img, method="nearest")(queries(c)),
     ["img", "coords"]),
    ("rgi_fill_none", lambda m, img, c: rgi(m, img, fill_value=None)(queries(c)),
     ["img", "coords"]),
    ("rgi_fill", lambda m, img, c: rgi(m, img, fill_value=-7.0)(queries(c), method="nearest"),
     ["img", "coords"]),
    ("rgi_tuple", lambda m, img, c: rgi(m, img)((queries(c)[:, 0], queries(c)[:1, 1])),
     ["img", "coords"]),
    ("rgi_trailing", lambda m, img, c: m.jsp.interpolate.RegularGridInterpolator(
        (m.jnp.array([0.0, 0.5, 1.5, 2.0]),), img)(queries(c)[:, :1]), ["img", "coords"]),
    ("rgi_int_values", lambda m, img, c: rgi(m, (img * 10).astype(np.int32))(queries(c)),
     ["img", "coords"]),
    ("rgi_grad", lambda m, img, c: m.jax.grad(
        lambda v, q: m.jnp.sum(rgi(m, v, fill_value=None)(q) ** 2), (0, 1))(img, queries(c)),
     ["img", "coords"]),
    ("rgi_vmap", lambda m, img, c: m.jax.vmap(lambda q: rgi(m, img)(q))(
        queries(c).reshape(5, 2, 2)), ["img", "coords"]),
    ("rgi_jit_pytree", lambda m, img, c: m.jax.jit(lambda r, q: r(q))(rgi(m, img),
                                                                      queries(c)),
     ["img", "coords"]),
]

# ---------------------------------------------------------------- fft


FFT = []
for _f in ("dct", "idct"):
    FFT += [
        (f"{_f}", (lambda f: lambda m, x: getattr(m.jsp.fft, f)(x))(_f), ["img"]),
        (f"{_f}_ortho_axis0", (lambda f: lambda m, x: getattr(m.jsp.fft, f)(
            x, axis=0, norm="ortho"))(_f), ["img"]),
        (f"{_f}_n_pad", (lambda f: lambda m, x: getattr(m.jsp.fft, f)(x, n=7))(_f), ["img"]),
        (f"{_f}_n_cut", (lambda f: lambda m, x: getattr(m.jsp.fft, f)(x, n=3, norm="backward"))(
            _f), ["img"]),
        (f"{_f}_complex", (lambda f: lambda m, x: getattr(m.jsp.fft, f)(
            x + 1j * x[::-1]))(_f), ["img"]),
        (f"{_f}_int", (lambda f: lambda m: getattr(m.jsp.fft, f)(m.jnp.arange(6)))(_f), []),
        (f"{_f}_grad", (lambda f: lambda m, x: m.jax.grad(
            lambda x: m.jnp.sum(m.jnp.sin(getattr(m.jsp.fft, f)(x, norm="ortho"))))(x))(_f),
         ["img"]),
        (f"{_f}n", (lambda f: lambda m, x: getattr(m.jsp.fft, f + "n")(x))(_f), ["img3"]),
        (f"{_f}n_ortho_axes", (lambda f: lambda m, x: getattr(m.jsp.fft, f + "n")(
            x, axes=(0, 2), norm="ortho"))(_f), ["img3"]),
        (f"{_f}n_s", (lambda f: lambda m, x: getattr(m.jsp.fft, f + "n")(x, s=(3, 6)))(_f),
         ["img3"]),
        (f"{_f}n_s_int", (lambda f: lambda m, x: getattr(m.jsp.fft, f + "n")(x, s=4))(_f),
         ["img3"]),
        (f"{_f}n_grad", (lambda f: lambda m, x: m.jax.grad(
            lambda x: m.jnp.sum(getattr(m.jsp.fft, f + "n")(x) ** 2))(x))(_f), ["img3"]),
        (f"{_f}_vmap", (lambda f: lambda m, x: m.jax.vmap(getattr(m.jsp.fft, f), 1)(x))(_f),
         ["img"]),
    ]

# ---------------------------------------------------------------- signal (convolutions)


SIGNAL = [
    ("detrend", lambda m, x: m.jsp.signal.detrend(x), ["img"]),
    ("detrend_const_axis0", lambda m, x: m.jsp.signal.detrend(x, axis=0, type="constant"),
     ["img"]),
    ("detrend_bp", lambda m, x: m.jsp.signal.detrend(x, bp=[2, 3]), ["img"]),
    ("detrend_grad", lambda m, x: m.jax.grad(
        lambda x: m.jnp.sum(m.jsp.signal.detrend(x) ** 3))(x), ["img"]),
]
for _mode in ("full", "same", "valid"):
    SIGNAL += [
        (f"convolve_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.convolve(
            a, k, mode=md))(_mode), ["img", "ker"]),
        (f"convolve_swap_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.convolve(
            k, a, mode=md))(_mode), ["img", "ker"]),
        (f"convolve_fft_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.convolve(
            a, k, mode=md, method="fft"))(_mode), ["img", "ker"]),
        (f"correlate_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.correlate(
            a[0], k[1], mode=md))(_mode), ["img", "ker"]),
        (f"convolve2d_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.convolve2d(
            a, k, mode=md))(_mode), ["img", "ker"]),
        (f"correlate2d_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.correlate2d(
            a, k, mode=md))(_mode), ["img", "ker"]),
        (f"correlate2d_swap_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.correlate2d(
            k, a, mode=md))(_mode), ["img", "ker"]),
        (f"correlate2d_complex_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.correlate2d(
            a + 1j * a[::-1], k - 0.5j * k, mode=md))(_mode), ["img", "ker"]),
        (f"fftconvolve_axes_{_mode}", (lambda md: lambda m, a, k: m.jsp.signal.fftconvolve(
            a, k[:1].repeat(4, 0) * m.jnp.arange(1.0, 5.0)[:, None], mode=md, axes=1))(_mode),
         ["img", "ker"]),
    ]
SIGNAL += [
    ("convolve_grad", lambda m, a, k: m.jax.grad(
        lambda a, k: m.jnp.sum(m.jnp.sin(m.jsp.signal.convolve(a, k))), (0, 1))(a, k),
     ["img", "ker"]),
    ("fftconvolve_grad", lambda m, a, k: m.jax.grad(
        lambda a, k: m.jnp.sum(m.jnp.sin(m.jsp.signal.fftconvolve(a, k, "same"))), (0, 1))(
        a, k), ["img", "ker"]),
    ("convolve_vmap", lambda m, a, k: m.jax.vmap(
        lambda r: m.jsp.signal.convolve(r, k[0], "same"))(a), ["img", "ker"]),
    ("convolve_int", lambda m: m.jsp.signal.convolve(m.jnp.arange(5), m.jnp.array([1, 2])),
     []),
]

# ---------------------------------------------------------------- signal (spectral)


def _sig(m):
    return m.jsp.signal


SPECTRAL = [
    ("stft", lambda m, x: _sig(m).stft(x, nperseg=8), ["sig"]),
    ("stft_opts", lambda m, x: _sig(m).stft(x, fs=2.0, nperseg=9, noverlap=3, nfft=12,
                                            detrend="linear", boundary="odd", padded=False,
                                            axis=0), ["sigT"]),
    ("stft_even_twosided", lambda m, x: _sig(m).stft(x, nperseg=6, boundary="even",
                                                     return_onesided=False), ["sig"]),
    ("stft_constant_none", lambda m, x: _sig(m).stft(x, nperseg=6, boundary="constant",
                                                     detrend="constant"), ["sig"]),
    ("stft_noboundary", lambda m, x: _sig(m).stft(x, nperseg=7, boundary=None, padded=False),
     ["sig"]),
    ("stft_complex", lambda m, x, y: _sig(m).stft(x + 1j * y, nperseg=8), ["sig", "sig2"]),
    ("stft_window_array", lambda m, x, w: _sig(m).stft(x, window=w, nperseg=7), ["sig", "win7"]),
    ("stft_hamming", lambda m, x: _sig(m).stft(x, window="hamming", nperseg=8), ["sig"]),
    ("stft_int", lambda m: _sig(m).stft(m.jnp.arange(20) % 7, nperseg=4), []),
    ("istft", lambda m, x: _sig(m).istft(_sig(m).stft(x, nperseg=8)[2]), ["sig"]),
    ("istft_opts", lambda m, x: _sig(m).istft(
        _sig(m).stft(x, nperseg=9, noverlap=6, nfft=12, axis=0)[2], nperseg=9, noverlap=6,
        nfft=12, time_axis=-1, freq_axis=0, fs=4.0), ["sigT"]),
    ("istft_twosided", lambda m, x: _sig(m).istft(
        _sig(m).stft(x, nperseg=6, return_onesided=False)[2], input_onesided=False,
        boundary=False), ["sig"]),
    ("istft_window", lambda m, x, w: _sig(m).istft(_sig(m).stft(x, window=w, nperseg=7)[2],
                                                   window=w, nperseg=7, nfft=7), ["sig", "win7"]),
    ("welch", lambda m, x: _sig(m).welch(x, nperseg=8), ["sig"]),
    ("welch_default", lambda m, x: _sig(m).welch(x), ["sig"]),
    ("welch_opts", lambda m, x: _sig(m).welch(x, fs=3.0, nperseg=5, noverlap=1, nfft=9,
                                              detrend="linear", scaling="spectrum",
                                              axis=0, average="median"), ["sigT"]),
    ("welch_twosided", lambda m, x: _sig(m).welch(x, nperseg=8, detrend=False,
                                                  return_onesided=False), ["sig"]),
    ("welch_callable", lambda m, x: _sig(m).welch(x, nperseg=8,
                                                  detrend=lambda d: d - d[..., :1]), ["sig"]),
    ("welch_one_segment", lambda m, x: _sig(m).welch(x, nperseg=37), ["sig"]),
    ("csd", lambda m, x, y: _sig(m).csd(x, y, nperseg=8), ["sig", "sig2"]),
    ("csd_median", lambda m, x, y: _sig(m).csd(x, y[:, :30], nperseg=8, average="median"),
     ["sig", "sig2"]),
    ("csd_broadcast", lambda m, x, y: _sig(m).csd(x, y[:1], nperseg=10, noverlap=7),
     ["sig", "sig2"]),
    ("csd_none", lambda m, x: _sig(m).csd(x, None, nperseg=8), ["sig"]),
    ("welch_grad", lambda m, x: m.jax.grad(
        lambda x: m.jnp.sum(m.jnp.sqrt(_sig(m).welch(x, nperseg=8)[1])))(x), ["sig"]),
    ("stft_grad", lambda m, x: m.jax.grad(
        lambda x: m.jnp.sum(m.jnp.abs(_sig(m).stft(x, nperseg=8)[2]) ** 2))(x), ["sig"]),
    ("istft_grad", lambda m, x: m.jax.grad(lambda x: m.jnp.sum(m.jnp.sin(_sig(m).istft(
        _sig(m).stft(x, nperseg=8)[2])[1])))(x), ["sig"]),
    ("csd_grad", lambda m, x, y: m.jax.grad(lambda x, y: m.jnp.sum(m.jnp.abs(
        _sig(m).csd(x, y, nperseg=8)[1])), (0, 1))(x, y), ["sig", "sig2"]),
    ("welch_vmap", lambda m, x: m.jax.vmap(lambda r: _sig(m).welch(r, nperseg=8)[1])(x),
     ["sig"]),
    ("stft_vmap", lambda m, x: m.jax.vmap(lambda r: _sig(m).stft(r, nperseg=8)[2], 1, 0)(x),
     ["sigT"]),
]

# ---------------------------------------------------------------- spatial.transform


def _rot(m):
    return m.jsp.spatial.transform.Rotation


def _slerp(m):
    return m.jsp.spatial.transform.Slerp


SPATIAL = [
    ("rot_quat_matrix", lambda m, q: _rot(m).from_quat(q).as_matrix(), ["quat"]),
    ("rot_quat_single", lambda m, q: _rot(m).from_quat(q[0]).as_quat(), ["quat"]),
    ("rot_as_quat_canonical", lambda m, q: _rot(m).from_quat(q).as_quat(
        canonical=True, scalar_first=True), ["quat"]),
    ("rot_from_matrix", lambda m, q: _rot(m).from_matrix(
        _rot(m).from_quat(q).as_matrix()).as_quat(canonical=True), ["quat"]),
    ("rot_from_matrix_diag", lambda m: m.jnp.stack([_rot(m).from_matrix(
        m.jnp.diag(m.jnp.array(d, m.jnp.float32))).as_quat(canonical=True)
        for d in ([1, -1, -1], [-1, 1, -1], [-1, -1, 1], [1, 1, 1])]), []),
    ("rot_rotvec", lambda m, v: _rot(m).from_rotvec(v).as_quat(), ["rotvec"]),
    ("rot_rotvec_deg", lambda m, v: _rot(m).from_rotvec(30 * v, degrees=True).as_rotvec(
        degrees=True), ["rotvec"]),
    ("rot_as_rotvec", lambda m, q: _rot(m).from_quat(q).as_rotvec(), ["quat"]),
    ("rot_rotvec_small", lambda m, v: _rot(m).from_rotvec(1e-4 * v).as_rotvec(), ["rotvec"]),
    ("rot_mrp", lambda m, q, v: (_rot(m).from_quat(q).as_mrp(),
                                 _rot(m).from_mrp(0.3 * v).as_quat()), ["quat", "rotvec"]),
    ("rot_magnitude_inv", lambda m, q: (_rot(m).from_quat(q).magnitude(),
                                        _rot(m).from_quat(q).inv().as_quat()), ["quat"]),
    ("rot_compose", lambda m, q, v: (_rot(m).from_quat(q) * _rot(m).from_rotvec(v)).as_quat(),
     ["quat", "rotvec"]),
    ("rot_apply", lambda m, q, x: (_rot(m).from_quat(q).apply(x),
                                   _rot(m).from_quat(q).apply(x, inverse=True),
                                   _rot(m).from_quat(q[0]).apply(x)), ["quat", "vec3"]),
    ("rot_mean", lambda m, q, w: (_rot(m).from_quat(q).mean().as_matrix(),
                                  _rot(m).from_quat(q).mean(w).as_matrix()), ["quat", "wts"]),
    ("rot_identity", lambda m: _rot(m).identity().as_matrix(), []),
    ("rot_concat_index", lambda m, q: (_rot(m).concatenate(
        [_rot(m).from_quat(q[:2]), _rot(m).from_quat(q[3:])]).as_quat(),
        _rot(m).from_quat(q)[1:4].as_quat(), _rot(m).from_quat(q)[2].as_quat()), ["quat"]),
    ("rot_from_euler_one", lambda m: _rot(m).from_euler("z", 90.0, degrees=True).as_quat(),
     []),
    ("rot_euler_two", lambda m, a: (_rot(m).from_euler("xy", a[:, :2]).as_quat(),
                                    _rot(m).from_euler("YZ", a[:, 1:]).as_quat()), ["ang"]),
    ("rot_from_euler_gimbal", lambda m: m.jnp.stack([
        _rot(m).from_euler(s, m.jnp.array([0.3, b, 0.2])).as_euler(s)
        for s in ("xyz", "XYZ", "zxz", "ZXZ") for b in (0.0, 1.5707964, 3.1415927)]), []),
    ("rot_quat_grad", lambda m, q, x: m.jax.grad(lambda q: m.jnp.sum(m.jnp.sin(
        _rot(m).from_quat(q).apply(x))))(q), ["quat", "vec3"]),
    ("rot_rotvec_grad", lambda m, v: m.jax.grad(lambda v: m.jnp.sum(
        _rot(m).from_rotvec(v).as_matrix() ** 3))(v), ["rotvec"]),
    ("rot_euler_grad", lambda m, a: m.jax.grad(lambda a: m.jnp.sum(m.jnp.cos(
        _rot(m).from_euler("ZYX", a).as_euler("zyx"))))(a), ["ang"]),
    ("rot_vmap", lambda m, q: m.jax.vmap(lambda q: _rot(m).from_quat(q).as_rotvec())(q),
     ["quat"]),
    ("rot_jit_pytree", lambda m, q, x: m.jax.jit(lambda r, x: r.apply(x))(
        _rot(m).from_quat(q), x), ["quat", "vec3"]),
    ("slerp", lambda m, q, t: _slerp(m).init(t, _rot(m).from_quat(q))(
        m.jnp.array([0.0, 0.25, 1.0, 1.7, 2.5, 3.9, 4.0])).as_quat(), ["quat", "tkey"]),
    ("slerp_scalar", lambda m, q, t: _slerp(m).init(t, _rot(m).from_quat(q))(2.2).as_matrix(),
     ["quat", "tkey"]),
    ("slerp_grad", lambda m, q, t: m.jax.grad(lambda q: m.jnp.sum(_slerp(m).init(
        t, _rot(m).from_quat(q))(m.jnp.array([0.3, 1.1, 3.3])).as_matrix() ** 2))(q),
     ["quat", "tkey"]),
    ("slerp_jit", lambda m, q, t: m.jax.jit(lambda s, u: s(u).as_rotvec())(
        _slerp(m).init(t, _rot(m).from_quat(q)), m.jnp.array([0.6, 2.9])), ["quat", "tkey"]),
]
for _seq in ("xyz", "ZYX", "zxz", "XZX", "yzy", "XYZ"):
    SPATIAL += [
        (f"rot_euler_{_seq}", (lambda sq: lambda m, a: (
            _rot(m).from_euler(sq, a).as_quat(),
            _rot(m).from_euler(sq, a, degrees=True).as_euler(sq, degrees=True)))(_seq),
         ["ang"]),
        (f"rot_as_euler_{_seq}", (lambda sq: lambda m, q: _rot(m).from_quat(q).as_euler(sq))(
            _seq), ["quat"]),
    ]

CASES = SPARSE + OPTIMIZE + SMALL + INTERPOLATE + FFT + SIGNAL + SPECTRAL + SPATIAL


def encode(y):
    y = np.asarray(y)
    vals = y.astype(np.complex128) if np.iscomplexobj(y) else y.astype(np.float64)
    out = {"dtype": str(y.dtype), "shape": list(y.shape)}
    if np.iscomplexobj(y):
        out["values"] = vals.real.ravel().tolist()
        out["imag"] = vals.imag.ravel().tolist()
    else:
        out["values"] = vals.ravel().tolist()
    return out


def decode(d):
    v = np.asarray(d["values"])
    if "imag" in d:
        v = v + 1j * np.asarray(d["imag"])
    return v.reshape(d["shape"])


def namespace(jax):
    import types
    import importlib
    for sub in ("sparse.linalg", "optimize", "integrate", "interpolate", "ndimage", "fft",
                "signal", "cluster.vq", "spatial.transform"):
        try:
            importlib.import_module(f"{jax.__name__}.scipy.{sub}")
        except ImportError:
            pass
    return types.SimpleNamespace(jax=jax, jnp=jax.numpy, lax=jax.lax, jsp=jax.scipy)


def record(path):
    import jax
    m = namespace(jax)
    ins = inputs()
    out = {}
    for name, fn, args in CASES:
        res = fn(m, *[ins[a] for a in args])
        res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        out[name] = [encode(r) for r in res]
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("scipy_modules.json"))
