"""The `jax.scipy` submodules beyond linalg / special / stats: values and derivatives
against JAX 0.10.2's stored ones (tests/oracle/record_scipy_modules.py), the same
cases under jit, float64 finite differences of derivatives, and JAX's error classes
for bad input."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.scipy.sparse import linalg as spla
from astjax.test_util import check_grads

from oracle import record_scipy_modules as rec

STORED = json.loads(Path(rec.__file__).with_name("scipy_modules.json").read_text())
M = rec.namespace(jax)
INPUTS = rec.inputs()
# iterative solvers stop at a tolerance: their results agree to about that; the
# minimum of the Rosenbrock valley is ill-conditioned in float32
TOL = {"cg": 2e-3, "bicgstab": 2e-3, "gmres": 2e-3, "bfgs_rosen2": 1e-2}


def _run(fn, args, wrap=None):
    f = (lambda *xs: fn(M, *xs)) if wrap is None else wrap(lambda *xs: fn(M, *xs))
    res = f(*[INPUTS[a] for a in args])
    return tuple(res) if isinstance(res, (tuple, list)) else (res,)


def _compare(name, res, want, check_dtype=True):
    assert len(res) == len(want), name
    for got, w in zip(res, want):
        got = np.asarray(got)
        if check_dtype:
            assert str(got.dtype) == w["dtype"], (name, got.dtype, w["dtype"])
        assert list(got.shape) == w["shape"], (name, got.shape)
        ref = rec.decode(w)
        scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
        rtol = TOL.get(name, TOL.get(name.split("_")[0], 2e-4))
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * scale, err_msg=name)


@pytest.mark.parametrize("name,fn,args", rec.CASES, ids=[c[0] for c in rec.CASES])
def test_values_and_derivatives_as_jax(name, fn, args):
    _compare(name, _run(fn, args), STORED[name])


@pytest.mark.parametrize("name,fn,args", rec.CASES, ids=[c[0] for c in rec.CASES])
def test_jitted_as_jax(name, fn, args):
    _compare(name, _run(fn, args, jax.jit), STORED[name])

def _raises_located(call, cls, msg):
    """`call()` raises JAX's class `cls` (and an AstjaxError) located in this file."""
    with pytest.raises(cls, match=msg) as e:
        call()
    assert isinstance(e.value, AstjaxError)
    assert "test_scipy_modules.py" in str(e.value)

# ------------------------------------------------------------ sparse.linalg


def _r(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape)


def _spd(n, seed=3):
    s = _r(n, n, seed=seed)
    return s @ s.T + n * np.eye(n)


@pytest.mark.parametrize("solver", ["cg", "bicgstab", "gmres"])
def test_sparse_solvers_finite_differences(solver, x64):
    a0 = _spd(4) if solver == "cg" else _r(4, 4) + 4 * np.eye(4)
    sym = solver == "cg"      # CG solves symmetric systems: keep perturbations symmetric
    f = getattr(spla, solver)

    def solve(a, b):
        a = (a + a.T) / 2 if sym else a
        return f(lambda v: a @ v, b, tol=1e-12)[0]
    check_grads(solve, (a0, _r(4, seed=1)), order=1, modes=("fwd", "rev"))


def test_sparse_solve_is_one_linear_solve_equation():
    a, b = INPUTS["spd"], INPUTS["b"]
    text = str(jax.make_jaxpr(lambda b: spla.cg(a, b)[0])(b))
    assert text.count("custom_linear_solve") == 1
    # the derivative is a second solve, not the while loop differentiated
    grad_text = str(jax.make_jaxpr(jax.grad(lambda b: jnp.sum(spla.cg(a, b)[0] ** 2)))(b))
    assert grad_text.count("custom_linear_solve") == 2


def test_sparse_solvers_agree_with_numpy_solve():
    a, b = INPUTS["gen"], INPUTS["b"]
    want = np.linalg.solve(a.astype(np.float64), b)
    for f in (spla.bicgstab, spla.gmres):
        np.testing.assert_allclose(np.asarray(f(a, b, tol=1e-7)[0]), want, rtol=1e-4,
                                   atol=1e-5)


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: spla.cg(np.ones((3, 4), np.float32), np.ones(3, np.float32)), ValueError,
     r"linear operator must be a square matrix, but has shape: \(3, 4\)"),
    (lambda: spla.cg("A", np.ones(3, np.float32)), TypeError,
     "linear operator must be either a function or ndarray"),
    (lambda: spla.bicgstab(np.eye(3, dtype=np.float32), np.ones(3, np.float32),
                           x0=np.ones(2, np.float32)),
     ValueError, "arrays in x0 and b must have matching shapes"),
    (lambda: spla.cg(np.eye(3, dtype=np.float32), np.ones(3, np.float32),
                     x0=(np.ones(3, np.float32),)),
     ValueError, "x0 and b must have matching tree structure"),
    (lambda: spla.gmres(np.eye(3, dtype=np.float32), np.ones(3, np.float32),
                        solve_method="qr"),
     ValueError, "invalid solve_method qr, must be either 'incremental' or 'batched'"),
])
def test_sparse_bad_inputs_raise_jax_classes(call, cls, msg):
    _raises_located(call, cls, msg)

# ------------------------------------------------------------ optimize


def test_minimize_bfgs_float64_reaches_rosenbrock_minimum(x64):
    # JAX 0.10.2 gets there from this start in 17 iterations (from (-1.2, 1) its
    # 10-step line search fails, here as there)
    r = jax.scipy.optimize.minimize(lambda x: rec.rosen(M, x), np.array([0.5, 0.8]),
                                    method="BFGS")
    assert bool(r.success) and int(r.status) == 0 and int(r.nit) == 17
    assert r.x.dtype == np.float64
    np.testing.assert_allclose(np.asarray(r.x), np.ones(2), atol=1e-6)


def test_minimize_lbfgs_float64_agrees_with_bfgs(x64):
    c = np.array([1.5, -0.5, 2.0])
    f = lambda x: rec.smooth(M, x, c)   # noqa: E731
    x0 = np.linspace(-1.0, 1.0, 5)
    opts = {"gtol": 1e-5}   # below, the ftol rule stops L-BFGS first (JAX too)
    lb = jax.scipy.optimize.minimize(f, x0, method=rec.LBFGS, options=opts)
    bf = jax.scipy.optimize.minimize(f, x0, method="BFGS", options=opts)
    assert bool(lb.success) and bool(bf.success) and lb.hess_inv is None
    np.testing.assert_allclose(np.asarray(lb.x), np.asarray(bf.x), atol=1e-5)
    assert float(jnp.max(jnp.abs(jax.grad(f)(lb.x)))) < 1e-5


def test_minimize_bfgs_hess_inv_approximates_inverse_hessian(x64):
    a = _spd(4)
    r = jax.scipy.optimize.minimize(lambda x: 0.5 * x @ a @ x - x.sum(), np.zeros(4),
                                    method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(np.asarray(r.x), np.linalg.solve(a, np.ones(4)), atol=1e-8)
    np.testing.assert_allclose(np.asarray(r.hess_inv), np.linalg.inv(a), atol=1e-3)


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: jax.scipy.optimize.minimize(jnp.sum, np.ones(2, np.float32), method="CG"),
     ValueError, "Method CG not recognized"),
    (lambda: jax.scipy.optimize.minimize(lambda x, c: jnp.sum(x * c), np.ones(2, np.float32),
                                         args=[1.0], method="BFGS"),
     TypeError, r"args argument to jax.scipy.optimize.minimize must be a tuple, got \[1.0\]"),
])
def test_minimize_bad_inputs_raise_jax_classes(call, cls, msg):
    _raises_located(call, cls, msg)

# ------------------------------------------------------------ integrate, ndimage, cluster


def test_small_modules_finite_differences(x64):
    img = _r(4, 5)
    coords = np.array([[0.3, 1.7, 2.2], [1.4, 0.6, 3.8]])     # away from the knots
    check_grads(lambda i, c: jax.scipy.ndimage.map_coordinates(i, list(c), 1, mode="mirror"),
                (img, coords), order=1, modes=("fwd", "rev"))
    check_grads(lambda y, x: jax.scipy.integrate.trapezoid(y, x), (_r(3, 5), np.arange(5.0)),
                order=1, modes=("fwd", "rev"))
    check_grads(lambda o: jax.scipy.cluster.vq.vq(o, _r(4, 3, seed=2))[1], (_r(5, 3, seed=1),),
                order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: jax.scipy.ndimage.map_coordinates(jnp.ones((3, 3)), [jnp.zeros(2)], 1),
     ValueError, r"coordinates must be a sequence of length input.ndim, but 1 != 2"),
    (lambda: jax.scipy.ndimage.map_coordinates(jnp.ones(3), [jnp.zeros(2)], 3),
     NotImplementedError, "currently requires order<=1"),
    (lambda: jax.scipy.ndimage.map_coordinates(jnp.ones(3), [jnp.zeros(2)], 1, mode="grid"),
     NotImplementedError, "does not yet support mode grid"),
    (lambda: jax.scipy.cluster.vq.vq(jnp.ones((3, 2)), jnp.ones(2)), ValueError,
     "Observation and code_book should have the same rank"),
    (lambda: jax.scipy.cluster.vq.vq(jnp.ones((3, 2, 1)), jnp.ones((2, 2, 1))), ValueError,
     "ndim different than 1 or 2 are not supported"),
    (lambda: jax.scipy.cluster.vq.vq([[1.0]], jnp.ones((2, 1))), TypeError,
     "scipy.cluster.vq.vq requires ndarray or scalar arguments"),
])
def test_small_modules_bad_inputs_raise_jax_classes(call, cls, msg):
    _raises_located(call, cls, msg)

# ------------------------------------------------------------ interpolate


def test_regular_grid_interpolator_finite_differences(x64):
    pts = (np.array([0.0, 0.5, 1.5, 2.0]), np.array([-1.0, 0.0, 0.5, 2.0, 3.0]))
    q = np.array([[0.3, -0.4], [1.1, 1.2], [1.8, 2.6]])          # inside cells, off knots
    check_grads(lambda v, q: jax.scipy.interpolate.RegularGridInterpolator(pts, v)(q),
                (_r(4, 5), q), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: jax.scipy.interpolate.RegularGridInterpolator((jnp.arange(3.0),), jnp.ones(3),
                                                           method="cubic"),
     ValueError, "method 'cubic' is not defined"),
    (lambda: jax.scipy.interpolate.RegularGridInterpolator((jnp.arange(3.0),), jnp.ones(3),
                                                           bounds_error=True),
     NotImplementedError, "`bounds_error` takes no effect under JIT"),
    (lambda: jax.scipy.interpolate.RegularGridInterpolator(
        (jnp.arange(3.0), jnp.arange(2.0)), jnp.ones(3)),
     ValueError, "there are 2 point arrays, but values has 1 dimensions"),
    (lambda: jax.scipy.interpolate.RegularGridInterpolator((jnp.arange(3.0),), jnp.ones(3),
                                                           fill_value=1j),
     ValueError, "fill_value must be either 'None' or of a type compatible with values"),
    (lambda: jax.scipy.interpolate.RegularGridInterpolator(
        (jnp.arange(3.0),), jnp.ones(3))(jnp.ones((4, 2))),
     ValueError, "the requested sample points xi have dimension 2, but this "
                 "RegularGridInterpolator has dimension 1"),
    (lambda: jax.scipy.interpolate.RegularGridInterpolator(([0.0, 1.0],), jnp.ones(2)),
     TypeError, "RegularGridInterpolator requires ndarray or scalar arguments"),
])
def test_interpolate_bad_inputs_raise_jax_classes(call, cls, msg):
    _raises_located(call, cls, msg)

# ------------------------------------------------------------ fft


def test_dct_finite_differences_and_round_trip(x64):
    x = _r(3, 6)
    for f in (jax.scipy.fft.dct, jax.scipy.fft.idct, jax.scipy.fft.dctn, jax.scipy.fft.idctn):
        check_grads(lambda x: f(x, norm="ortho"), (x,), order=1, modes=("fwd", "rev"))
    for norm in (None, "ortho"):
        back = jax.scipy.fft.idctn(jax.scipy.fft.dctn(x, norm=norm), norm=norm)
        np.testing.assert_allclose(np.asarray(back), x, atol=1e-12)


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: jax.scipy.fft.dct(jnp.ones(4), type=3), NotImplementedError,
     "Only DCT type 2 is implemented."),
    (lambda: jax.scipy.fft.idctn(jnp.ones((2, 2)), type=1), NotImplementedError,
     "Only DCT type 2 is implemented."),
    (lambda: jax.scipy.fft.idct(jnp.ones(4), norm="forward"), ValueError,
     "jax.scipy.fft.idct: norm='forward' is not implemented"),
    (lambda: jax.scipy.fft.dctn(jnp.ones(4), s=(2, 2)), ValueError,
     r"s must have at most x.ndim \(1\) elements, got 2"),
    (lambda: jax.scipy.fft.dct([1.0, 2.0]), TypeError,
     "dct requires ndarray or scalar arguments"),
])
def test_fft_bad_inputs_raise_jax_classes(call, cls, msg):
    _raises_located(call, cls, msg)

# ------------------------------------------------------------ signal


def test_signal_finite_differences(x64):
    a, k = _r(4, 5), _r(2, 3, seed=1)
    for f in (jax.scipy.signal.convolve, jax.scipy.signal.correlate2d,
              jax.scipy.signal.fftconvolve):
        check_grads(lambda a, k: f(a, k, mode="same"), (a, k), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: jax.scipy.signal.detrend(x, bp=2), (a,), order=1,
                modes=("fwd", "rev"))


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: jax.scipy.signal.convolve(jnp.ones(3), jnp.ones(2), mode="wide"), ValueError,
     r"mode must be one of \['full', 'same', 'valid'\]"),
    (lambda: jax.scipy.signal.convolve(jnp.ones(3), jnp.ones(2), method="winograd"),
     ValueError, "Got method='winograd'; expected 'auto', 'fft', or 'direct'."),
    (lambda: jax.scipy.signal.convolve(jnp.ones((3, 1)), jnp.ones((1, 3))), ValueError,
     "One input must be smaller than the other in every dimension."),
    (lambda: jax.scipy.signal.convolve(jnp.ones(3), jnp.ones((1, 3))), ValueError,
     "in1 and in2 must have the same number of dimensions"),
    (lambda: jax.scipy.signal.fftconvolve(jnp.ones(3), jnp.ones((1, 3))), ValueError,
     "in1 and in2 should have the same dimensionality"),
    (lambda: jax.scipy.signal.fftconvolve(jnp.ones((3, 1)), jnp.ones((1, 3)), mode="valid"),
     ValueError, "For 'valid' mode, One input must be at least as large"),
    (lambda: jax.scipy.signal.convolve2d(jnp.ones((3, 3)), jnp.ones((2, 2)), boundary="wrap"),
     NotImplementedError, "convolve2d\\(\\) only supports boundary='fill', fillvalue=0"),
    (lambda: jax.scipy.signal.correlate2d(jnp.ones(3), jnp.ones(2)), ValueError,
     r"correlate2d\(\) only supports 2-dimensional inputs."),
    (lambda: jax.scipy.signal.detrend(jnp.ones(4), type="quadratic"), ValueError,
     "Trend type must be 'linear' or 'constant'."),
    (lambda: jax.scipy.signal.detrend(jnp.ones(4), bp=7), ValueError,
     "Breakpoints must be non-negative"),
])
def test_signal_bad_inputs_raise_jax_classes(call, cls, msg):
    _raises_located(call, cls, msg)

# ------------------------------------------------------------ served as jax.scipy.*


def test_new_submodules_import_under_jax_names():
    import subprocess
    import sys
    code = ("import astjax; astjax.install_as_jax()\n"
            "import jax.scipy.sparse.linalg, jax.scipy.optimize, jax.scipy.integrate\n"
            "import jax.scipy.interpolate, jax.scipy.ndimage, jax.scipy.fft\n"
            "import jax.scipy.signal, jax.scipy.cluster.vq, jax.scipy.spatial.transform\n"
            "from jax.scipy.spatial.transform import Rotation\n"
            "assert Rotation.identity().single\n"
            "import jax.numpy as jnp\n"
            "x, _ = jax.scipy.sparse.linalg.cg(2.0 * jnp.eye(3), jnp.ones(3))\n"
            "print(float(x.sum()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert abs(float(out.stdout.strip()) - 1.5) < 1e-5

# ------------------------------------------------------------ signal (spectral)


def test_spectral_finite_differences_and_round_trip(x64):
    x, y = _r(2, 23), _r(2, 23, seed=1)
    sig = jax.scipy.signal
    check_grads(lambda x: sig.welch(x, nperseg=8)[1], (x,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x, y: sig.csd(x, y, nperseg=6, noverlap=2, detrend="linear")[1],
                (x, y), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: sig.stft(x, nperseg=8, boundary="odd")[2], (x,), order=1,
                modes=("fwd", "rev"))
    z = sig.stft(x, nperseg=8)[2]
    check_grads(lambda z: sig.istft(z)[1], (z,), order=1, modes=("fwd", "rev"))
    t, back = sig.istft(z)
    np.testing.assert_allclose(np.asarray(back)[:, :23], x, atol=1e-12)
    assert np.asarray(t).dtype == np.float64


@pytest.mark.parametrize("call,cls,msg", [
    (lambda: jax.scipy.signal.stft(jnp.ones(16), boundary="wrap"), ValueError,
     r"Unknown boundary option 'wrap', must be one of: \['even', 'odd', 'constant', "
     r"'zeros', None\]"),
    (lambda: jax.scipy.signal.stft(jnp.ones(16), nperseg=0), ValueError,
     "nperseg must be a positive integer"),
    (lambda: jax.scipy.signal.stft(jnp.ones(16), nperseg=8, nfft=4), ValueError,
     "nfft must be greater than or equal to nperseg."),
    (lambda: jax.scipy.signal.welch(jnp.ones(16), nperseg=8, noverlap=8), ValueError,
     "noverlap must be less than nperseg."),
    (lambda: jax.scipy.signal.welch(jnp.ones(16), scaling="power"), ValueError,
     "Unknown scaling: power"),
    (lambda: jax.scipy.signal.welch(jnp.ones(16), nperseg=4, average="mode"), ValueError,
     'average must be "median" or "mean", got mode'),
    (lambda: jax.scipy.signal.welch(jnp.ones(16), detrend=True), ValueError,
     "Unsupported detrend type: True"),
    (lambda: jax.scipy.signal.welch(jnp.ones(16), window=jnp.ones((2, 2))), ValueError,
     "window must be 1-D"),
    (lambda: jax.scipy.signal.welch(jnp.ones(4), window=jnp.ones(5)), ValueError,
     "window is longer than input signal"),
    (lambda: jax.scipy.signal.welch(jnp.ones(9), window=jnp.ones(5), nperseg=4), ValueError,
     "value specified for nperseg is different from length of window"),
    (lambda: jax.scipy.signal.csd(jnp.ones((2, 9)), jnp.ones((3, 9))), ValueError,
     "x and y cannot be broadcast together."),
    (lambda: jax.scipy.signal.stft([1.0, 2.0]), TypeError,
     "spectral_helper requires ndarray or scalar arguments"),
    (lambda: jax.scipy.signal.istft(jnp.ones(4)), ValueError,
     "Input stft must be at least 2d!"),
    (lambda: jax.scipy.signal.istft(jnp.ones((3, 4)), time_axis=0, freq_axis=-2), ValueError,
     "Must specify differing time and frequency axes!"),
    (lambda: jax.scipy.signal.istft(jnp.ones((5, 4)), nfft=6), ValueError,
     r"FFT length \(6\) must be longer than nperseg \(8\)."),
    (lambda: jax.scipy.signal.istft(jnp.ones((5, 4)), noverlap=8), ValueError,
     "noverlap must be less than nperseg."),
    (lambda: jax.scipy.signal.istft(jnp.ones((5, 4)), window=jnp.ones(7)), ValueError,
     "window must have length of 8"),
])
def test_spectral_bad_inputs_raise_jax_classes(call, cls, msg):
    _raises_located(call, cls, msg)


def test_spectral_warns_as_jax():
    with pytest.warns(UserWarning, match="Input data is complex, switching to "
                                         "return_onesided=False"):
        jax.scipy.signal.welch(jnp.ones(16) * 1j, nperseg=8)
    with pytest.warns(UserWarning, match="nperseg=256 is greater than input_length=16"):
        jax.scipy.signal.stft(jnp.ones(16))

# ------------------------------------------------------------ spatial.transform


def test_rotation_finite_differences(x64):
    from astjax.scipy.spatial.transform import Rotation, Slerp
    q, v, a = _r(4, 4), _r(4, 3, seed=1), _r(4, 3, seed=2)
    check_grads(lambda q: Rotation.from_quat(q).apply(v), (q,), order=1, modes=("fwd", "rev"))
    check_grads(lambda v: Rotation.from_rotvec(v).as_quat(), (v,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda q: Rotation.from_quat(q).as_rotvec(), (q,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda a: Rotation.from_euler("zxy", a).as_euler("zxy"), (a,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda q: (Rotation.from_matrix(Rotation.from_quat(q).as_matrix())
                           * Rotation.from_mrp(v)).as_mrp(), (q,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda q: Slerp.init(np.arange(4.0), Rotation.from_quat(q))(
        np.array([0.2, 1.5, 2.9])).as_quat(), (q,), order=1, modes=("fwd", "rev"))


def test_rotation_is_a_pytree_and_round_trips():
    from astjax.scipy.spatial.transform import Rotation, Slerp
    r = Rotation.from_rotvec(_r(5, 3).astype(np.float32))
    leaves, tree = jax.tree_util.tree_flatten(r)
    assert len(leaves) == 1 and isinstance(jax.tree_util.tree_unflatten(tree, leaves),
                                           Rotation)
    out = jax.jit(lambda r: r.inv() * r)(r)
    assert isinstance(out, Rotation) and len(out) == 5
    np.testing.assert_allclose(np.asarray(out.magnitude()), 0, atol=1e-3)
    s = Slerp.init([0.0, 1.0, 2.0, 3.0, 4.0], r)
    assert isinstance(jax.jit(lambda s: s)(s), Slerp)
    np.testing.assert_allclose(np.asarray(s(jnp.arange(5.0)).as_matrix()),
                               np.asarray(r.as_matrix()), atol=1e-5)
    back = Rotation.from_matrix(r.as_matrix()).as_quat(canonical=True)
    np.testing.assert_allclose(np.asarray(back), np.asarray(r.as_quat(canonical=True)),
                               atol=1e-5)
    assert Rotation.identity(3).quat.shape == (3, 4)
    many = Rotation.random(jax.random.PRNGKey(0), 2000)
    assert many.quat.shape == (2000, 4)
    np.testing.assert_allclose(np.linalg.norm(np.asarray(many.quat), axis=-1), 1, atol=1e-5)
    # uniform rotations: the mean of the rotated z axis is near zero
    assert np.abs(np.asarray(many.apply(jnp.array([0.0, 0.0, 1.0]))).mean(0)).max() < 0.08
    assert Rotation.random(jax.random.PRNGKey(1)).single


@pytest.mark.parametrize("call,cls,msg", [
    (lambda R: R.from_euler("xyzx", jnp.ones(4)), ValueError,
     "Expected axis specification to be a non-empty string of upto 3 characters, got xyzx"),
    (lambda R: R.from_euler("xYz", jnp.ones(3)), ValueError,
     r"Expected axes from `seq` to be from \['x', 'y', 'z'\] or \['X', 'Y', 'Z'\], got xYz"),
    (lambda R: R.from_euler("xxy", jnp.ones(3)), ValueError,
     "Expected consecutive axes to be different, got xxy"),
    (lambda R: R.identity().as_euler("xy"), ValueError, "Expected 3 axes, got xy."),
    (lambda R: R.from_euler("z", jnp.array([90.0, 45.0])), ValueError,
     r"Expected 1 angles per rotation for seq='z', got shape \(2,\)"),
    (lambda R: R.identity()[0], TypeError, "Single rotation is not subscriptable."),
    (lambda R: len(R.identity()), TypeError, "Single rotation has no len()."),
    (lambda R: R.identity(3).mean(jnp.ones((3, 1))), ValueError,
     r"Expected `weights` to be 1 dimensional, got shape \(3, 1\)."),
    (lambda R: R.identity(3).mean(jnp.ones(2)), ValueError,
     "Expected `weights` to have number of values equal to number of rotations, got 2 "
     "values and 3 rotations."),
])
def test_rotation_bad_inputs_raise_jax_classes(call, cls, msg):
    from astjax.scipy.spatial.transform import Rotation
    _raises_located(lambda: call(Rotation), cls, msg)


@pytest.mark.parametrize("call,cls,msg", [
    (lambda R, S: S.init([0.0, 1.0], R.identity().quat), TypeError,
     "`rotations` must be a `Rotation` instance."),
    (lambda R, S: S.init([0.0], R.identity(1)), ValueError,
     "`rotations` must be a sequence of at least 2 rotations."),
    (lambda R, S: S.init([[0.0, 1.0]], R.identity(2)), ValueError,
     "Expected times to be specified in a 1 dimensional array, got 2 dimensions."),
    (lambda R, S: S.init([0.0, 1.0, 2.0], R.identity(2)), ValueError,
     "Expected number of rotations to be equal to number of timestamps given, got 2 "
     "rotations and 3 timestamps."),
    (lambda R, S: S.init([0.0, 1.0], R.identity(2))(jnp.ones((2, 2))), ValueError,
     "`times` must be at most 1-dimensional."),
])
def test_slerp_bad_inputs_raise_jax_classes(call, cls, msg):
    from astjax.scipy.spatial.transform import Rotation, Slerp
    _raises_located(lambda: call(Rotation, Slerp), cls, msg)
