"""Linear algebra on LAPACK (issue 13 item 6): `jnp.linalg`, `jax.scipy.linalg` and
`lax.linalg` against values stored from JAX 0.10.2 (the same LAPACK kernels, so the
same eigenvector and singular-vector signs: `random.multivariate_normal(method='eigh'
| 'svd')` and `nn.initializers.orthogonal` draw JAX's samples), their derivatives against float64 finite
differences and stored JAX gradients, `vmap`, and the custom calls in the lowered
module."""
import json
import types
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
import astjax.scipy as jsp
import astjax.scipy.linalg  # noqa: F401
from astjax import lax
from astjax.test_util import check_grads

from oracle import record_linalg as rec

STORED = json.loads(Path(rec.__file__).with_name("linalg.json").read_text())
M = types.SimpleNamespace(jax=jax, jnp=jnp, jsp=jsp, lax=lax)
INPUTS = rec.inputs()


def _compare(name, fn, args, atol=2e-4):
    res = fn(M, *[INPUTS[a] for a in args])
    res = res if isinstance(res, tuple) else (res,)
    want = STORED[name]
    assert len(res) == len(want)
    for got, w in zip(res, want):
        got = np.asarray(got)
        ref = rec.decode(w)
        assert str(got.dtype) == w["dtype"], (name, got.dtype, w["dtype"])
        assert list(got.shape) == w["shape"], (name, got.shape, w["shape"])
        ref = ref if np.iscomplexobj(got) else ref.real
        scale = max(1.0, float(np.nanmax(np.abs(ref[np.isfinite(ref)]), initial=0.0)))
        np.testing.assert_allclose(got, ref, atol=atol * scale, rtol=1e-3, err_msg=name)


@pytest.mark.parametrize("name,fn,args", rec.CASES, ids=[c[0] for c in rec.CASES])
def test_values_as_jax(name, fn, args):
    _compare(name, fn, args)


@pytest.mark.parametrize("name,fn,args", rec.GRADS, ids=[c[0] for c in rec.GRADS])
def test_gradients_as_jax(name, fn, args):
    _compare(name, fn, args, atol=1e-3)


def test_jitted_equals_eager():
    a = INPUTS["sym"]
    w1, v1 = jnp.linalg.eigh(a)
    w2, v2 = jax.jit(jnp.linalg.eigh)(a)
    np.testing.assert_allclose(np.asarray(v1), np.asarray(v2), atol=1e-6)


def test_lowered_module_calls_lapack():
    text = jax.jit(lambda x: jnp.linalg.svd(x)[1] + jnp.linalg.eigvalsh(x)).lower(
        INPUTS["sym"]).as_text()
    assert "lapack_sgesdd_ffi" in text and "lapack_ssyevd_ffi" in text


# ------------------------------------------------------------------ derivatives, float64

def _r(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape)


def _sym(n, seed=0):
    a = _r(n, n, seed=seed)
    return a + a.T + np.diag(np.arange(n) * 3.0)


FD = [
    ("lu", lambda x: lax.linalg.lu(x)[0], _r(4, 4)),
    ("lu_tall", lambda x: lax.linalg.lu(x)[0], _r(5, 3)),
    ("lu_wide", lambda x: lax.linalg.lu(x)[0], _r(3, 5, seed=2)),
    ("qr", lambda x: jnp.linalg.qr(x), _r(4, 3)),
    ("qr_wide", lambda x: jnp.linalg.qr(x), _r(3, 5)),
    ("qr_complete", lambda x: jnp.linalg.qr(x, mode="complete"), _r(5, 3)),
    ("eigh", lambda x: jnp.linalg.eigh(x), _sym(4)),
    ("svd", lambda x: jnp.linalg.svd(x, full_matrices=False), _r(4, 3)),
    ("svd_wide", lambda x: jnp.linalg.svd(x, full_matrices=False), _r(2, 4)),
    ("svdvals", jnp.linalg.svdvals, _r(3, 3)),
    ("det", jnp.linalg.det, _r(5, 5)),
    ("slogdet", lambda x: jnp.linalg.slogdet(x)[1], _r(4, 4)),
    ("solve", lambda x: jnp.linalg.solve(x, np.arange(4.0)), _r(4, 4)),
    ("inv", jnp.linalg.inv, _r(3, 3) + 3 * np.eye(3)),
    ("eigvals", lambda x: jnp.linalg.eigvals(x), _sym(3) + np.triu(_r(3, 3), 1)),
    ("pinv", jnp.linalg.pinv, _r(4, 2)),
    ("expm", jsp.linalg.expm, 0.5 * _r(3, 3)),
    ("cholesky", jnp.linalg.cholesky, _sym(3) @ _sym(3).T),
    ("lu_solve", lambda x: jsp.linalg.lu_solve(jsp.linalg.lu_factor(x), np.ones(3)),
     _r(3, 3)),
]


@pytest.mark.parametrize("name,f,x", FD, ids=[c[0] for c in FD])
def test_derivatives_finite_differences(name, f, x, x64):
    check_grads(f, (x,), order=1, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


def test_complex_eigh_and_svd_derivatives(x64):
    c = _r(3, 3) + 1j * _r(3, 3, seed=1)
    h = c + c.conj().T
    check_grads(lambda x: jnp.linalg.eigvalsh(x), (h,), order=1, modes=("fwd",))
    check_grads(lambda x: jnp.linalg.svdvals(x), (c,), order=1, modes=("fwd",))


def test_eigenvector_derivative_raises_as_jax():
    with pytest.raises(Exception, match="derivatives of eigenvectors"):
        jax.grad(lambda x: jnp.sum(jnp.linalg.eig(x)[1].real))(INPUTS["a"])


# ------------------------------------------------------------------ vmap and shapes

@pytest.mark.parametrize("fn", [
    lambda x: jnp.linalg.eigh(x)[0], lambda x: jnp.linalg.svd(x)[1],
    lambda x: jnp.linalg.qr(x)[1], lambda x: lax.linalg.lu(x)[2],
    lambda x: jnp.linalg.det(x), lambda x: jnp.abs(jnp.linalg.eigvals(x)),
    lambda x: jnp.linalg.inv(x), lambda x: jsp.linalg.schur(x)[0],
    lambda x: lax.linalg.hessenberg(x)[0], lambda x: jnp.linalg.qr(x, mode="raw")[0],
    lambda x: lax.linalg.householder_product(*lax.linalg.geqrf(x))])
def test_vmap_matches_loop(fn):
    xs = np.stack([INPUTS["spd"], 2 * INPUTS["spd"] + np.eye(4, dtype=np.float32)])
    got = jax.vmap(fn, in_axes=1, out_axes=0)(np.moveaxis(xs, 0, 1))
    want = np.stack([np.asarray(fn(x)) for x in xs])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


def test_float64_and_solve_against_numpy(x64):
    a = _r(6, 6)
    b = _r(6, 2)
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a, b)), np.linalg.solve(a, b),
                               rtol=1e-10)
    w = np.asarray(jnp.linalg.eigvalsh(_sym(6)))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(_sym(6)), rtol=1e-12)
    assert jnp.linalg.svd(a)[0].dtype == np.float64


def test_errors_as_jax():
    with pytest.raises(ValueError):
        jnp.linalg.det(jnp.ones(3))
    with pytest.raises(ValueError):
        jnp.linalg.inv(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="core dimension"):
        jnp.linalg.solve(jnp.eye(2), jnp.ones(3))
    with pytest.raises(ValueError, match="UPLO"):
        jnp.linalg.eigh(jnp.eye(2), UPLO="X")
    with pytest.raises(ValueError, match="Unsupported QR"):
        jnp.linalg.qr(jnp.eye(2), mode="bogus")
    with pytest.raises(ValueError, match="only one of"):
        jnp.linalg.pinv(jnp.eye(2), rtol=0.1, rcond=0.1)
    with pytest.raises(ValueError, match="square"):
        jsp.linalg.expm(jnp.ones((2, 3)))


CONSTRUCTED = json.loads(Path(rec.__file__).with_name("linalg_constructors.json").read_text())


@pytest.mark.parametrize("name,fn", rec.CONSTRUCTORS, ids=[c[0] for c in rec.CONSTRUCTORS])
def test_constructors_and_polar_as_jax(name, fn):
    res = fn(types.SimpleNamespace(jsp=jsp, np=np))
    res = res if isinstance(res, tuple) else (res,)
    for got, w in zip(res, CONSTRUCTED[name]):
        got = np.asarray(got)
        assert str(got.dtype) == w["dtype"] and list(got.shape) == w["shape"], (
            name, got.dtype, got.shape, w["dtype"], w["shape"])
        ref = rec.decode(w)
        np.testing.assert_allclose(got, ref if np.iscomplexobj(got) else ref.real, atol=1e-5,
                                   rtol=1e-5, err_msg=name)


def test_constructor_derivatives(x64):
    check_grads(lambda c: jsp.linalg.toeplitz(c, c[::-1] * 2), (np.arange(1.0, 4.0),), order=1)
    check_grads(lambda a: jsp.linalg.companion(a), (np.array([2.0, -3.0, 1.0]),), order=1)
    check_grads(lambda a: jsp.linalg.polar(a)[1], (_r(4, 3),), order=1, modes=("fwd",))


def test_holomorphic_cholesky_gradient_as_jax():
    # values recorded from JAX 0.10.2 (the imaginary parts used to be dropped)
    a = np.array([[4. + 1j, 1. - 0.5j], [1. + 0.5j, 3. + 0.2j]], np.complex64)
    g = jax.grad(lambda x: jnp.sum(jnp.linalg.cholesky(x)), holomorphic=True)(a)
    np.testing.assert_allclose(np.asarray(g), [[0.21132791, 0.1737507 - 0.03812464j],
                                               [0.1737507 + 0.03812464j, 0.30499715]],
                               atol=1e-6)
    up = jax.grad(lambda x: jnp.sum(jnp.linalg.cholesky(x, upper=True)), holomorphic=True)(a)
    want = jax.grad(lambda x: jnp.sum(jnp.conj(jnp.linalg.cholesky(x)).T), holomorphic=True)(a)
    np.testing.assert_allclose(np.asarray(up), np.asarray(want), atol=1e-6)
