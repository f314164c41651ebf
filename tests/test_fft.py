"""`lax.fft` and `jnp.fft` (issue 13 item 5): every transform against numpy.fft (shapes,
`n`/`s` crop and pad, `axes`, the three norms, more than three axes), JAX's own
scaling of hfft/ihfft (stored values), derivatives against float64 finite differences
(the four kinds, through the transposes), `vmap`, printed source, and JAX's errors."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.test_util import check_grads

from oracle import record_fft

R = np.random.RandomState(0)
X1 = R.randn(3, 8).astype(np.float32)
X3 = R.randn(2, 3, 4, 5).astype(np.float32)
C1 = (R.randn(3, 8) + 1j * R.randn(3, 8)).astype(np.complex64)
C3 = (R.randn(2, 3, 4, 5) + 1j * R.randn(2, 3, 4, 5)).astype(np.complex64)

NORMS = (None, "backward", "ortho", "forward")

# (name, input, kwargs)
CASES = []
for norm in NORMS:
    for name, x in (("fft", C1), ("ifft", C1), ("rfft", X1), ("irfft", C1)):
        CASES += [(name, x, {"norm": norm}), (name, x, {"norm": norm, "n": 5}),
                  (name, x, {"norm": norm, "n": 11, "axis": 0})]
    for name, x in (("fft2", C3), ("ifft2", C3), ("rfft2", X3), ("irfft2", C3)):
        CASES += [(name, x, {"norm": norm}), (name, x, {"norm": norm, "s": (5, 3)}),
                  (name, x, {"norm": norm, "axes": (0, 2)})]
    for name, x in (("fftn", C3), ("ifftn", C3), ("rfftn", X3), ("irfftn", C3)):
        CASES += [(name, x, {"norm": norm}), (name, x, {"norm": norm, "axes": (1, 3)}),
                  (name, x, {"norm": norm, "s": (2, 6, 4)}),
                  (name, x, {"norm": norm, "axes": (3, 0, 1), "s": (4, 2, 3)})]
CASES += [("fft", C1.real, {}), ("fft", np.arange(6), {}), ("rfft", np.arange(6), {}),
          ("hfft", C1, {}), ("hfft", C1, {"n": 9}), ("ihfft", X1, {}), ("ihfft", X1, {"n": 5})]


@pytest.mark.parametrize("name,x,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_against_numpy(name, x, kw):
    want = getattr(np.fft, name)(x, **kw)
    got = getattr(jnp.fft, name)(x, **kw)
    assert got.shape == want.shape
    assert np.iscomplexobj(got) == np.iscomplexobj(want)
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(np.asarray(got), want, atol=2e-5 * scale, rtol=1e-4)


def test_dtypes_follow_jax(x64):
    assert jnp.fft.fft(np.ones(4, np.float32)).dtype == np.complex64
    assert jnp.fft.fft(np.ones(4)).dtype == np.complex128
    assert jnp.fft.rfft(np.ones(4, np.int32)).dtype == np.complex128
    assert jnp.fft.irfft(np.ones(3, np.complex64)).dtype == np.float32


def test_dtypes_x32():
    assert jnp.fft.fft(np.ones(4)).dtype == np.complex64
    assert jnp.fft.rfft(np.arange(4)).dtype == np.complex64
    assert jnp.fft.irfft(np.ones(3)).dtype == np.float32


def test_more_than_three_axes_in_jit():
    x = R.randn(2, 3, 2, 3, 2).astype(np.float32)
    got = jax.jit(lambda a: jnp.fft.rfftn(a))(x)
    np.testing.assert_allclose(np.asarray(got), np.fft.rfftn(x), atol=1e-4)
    got = jax.jit(lambda a: jnp.fft.irfftn(a, s=(2, 3, 2, 3, 4)))(np.fft.rfftn(x).astype(
        np.complex64))
    np.testing.assert_allclose(np.asarray(got), np.fft.irfftn(np.fft.rfftn(x), s=(2, 3, 2, 3, 4)),
                               atol=1e-4)


@pytest.mark.parametrize("i", range(len(record_fft.CASES)))
def test_jax_stored_values(i):
    stored = json.loads(Path(record_fft.__file__).with_name("fft.json").read_text())[i]
    name, x, kw = record_fft.CASES[i]
    x = record_fft.decode(x)
    x = x.astype(np.complex64 if np.iscomplexobj(x) else np.float32)
    got = np.asarray(getattr(jnp.fft, name)(x, **kw))
    want = (np.asarray(stored["re"]) + 1j * np.asarray(stored["im"])).reshape(stored["shape"])
    assert str(got.dtype) == stored["dtype"] and list(got.shape) == stored["shape"]
    np.testing.assert_allclose(got, want if np.iscomplexobj(got) else want.real,
                               atol=1e-4, rtol=1e-4)


def test_lax_fft_kinds():
    for kind, x, ref in (("fft", C1, np.fft.fft), ("ifft", C1, np.fft.ifft),
                         ("rfft", X1, np.fft.rfft)):
        np.testing.assert_allclose(np.asarray(lax.fft(x, kind, (8,))), ref(x), atol=1e-5)
    np.testing.assert_allclose(np.asarray(lax.fft(C1, lax.FftType.IRFFT, (14,))),
                               np.fft.irfft(C1, 14), atol=1e-5)
    np.testing.assert_allclose(np.asarray(lax.fft(C3, "FFT", (3, 4, 5))),
                               np.fft.fftn(C3, axes=(1, 2, 3)), atol=1e-4)
    assert lax.fft(X1, "fft", ()).dtype == np.complex64


# ------------------------------------------------------------------ derivatives

def _rf(*shape):
    return np.random.RandomState(len(shape)).randn(*shape)


def _cf(*shape):
    r = np.random.RandomState(len(shape) + 7)
    return r.randn(*shape) + 1j * r.randn(*shape)


GRADS = [
    (lambda x: jnp.fft.fft(x), _cf(3, 6)),
    (lambda x: jnp.fft.ifft(x, norm="ortho"), _cf(3, 6)),
    (lambda x: jnp.fft.rfft(x), _rf(3, 6)),
    (lambda x: jnp.fft.rfft(x), _rf(3, 7)),
    (lambda x: jnp.fft.irfft(x), _cf(3, 5)),
    (lambda x: jnp.fft.irfft(x, n=9), _cf(3, 5)),
    (lambda x: jnp.fft.rfft2(x, norm="forward"), _rf(4, 6)),
    (lambda x: jnp.fft.irfftn(x), _cf(3, 4, 4)),
    (lambda x: jnp.fft.hfft(x), _cf(5)),
    (lambda x: jnp.sin(jnp.fft.irfft(jnp.fft.rfft(x) * 1.5)), _rf(8)),
]


@pytest.mark.parametrize("k", range(len(GRADS)))
def test_derivatives_finite_differences(k, x64):
    f, x = GRADS[k]
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))


def test_grad_real_scalar_matches_explicit_sum(x64):
    # d/dx sum(w * Re rfft(x)) = the real DFT matrix applied to w
    x = _rf(8)
    w = np.arange(5.0)
    g = jax.grad(lambda v: jnp.sum(w * jnp.real(jnp.fft.rfft(v))))(x)
    n = np.arange(8)
    dft = np.cos(2 * np.pi * np.outer(np.arange(5), n) / 8)
    np.testing.assert_allclose(np.asarray(g), w @ dft, atol=1e-12)


def test_vmap_and_jit():
    f = jax.jit(jax.vmap(lambda x: jnp.fft.fft2(x), in_axes=1, out_axes=2))
    got = f(C3)
    want = np.moveaxis(np.fft.fft2(np.moveaxis(C3, 1, 0)), 0, 2)
    np.testing.assert_allclose(np.asarray(got), want, atol=1e-4)
    g = jax.vmap(jax.grad(lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2)))(X1)
    # Parseval for rfft: grad of |X|^2 summed over the half spectrum
    want = np.stack([jax.grad(lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2))(r) for r in X1])
    np.testing.assert_allclose(np.asarray(g), want, atol=1e-4)


def test_printed_source_runs():
    f = lambda x: jnp.fft.rfft(x) * 2.0  # noqa: E731
    src = jax.source(f, X1)
    assert "fft" in src
    got = jax.jit(f)(X1)
    np.testing.assert_allclose(np.asarray(got), np.fft.rfft(X1) * 2, atol=1e-4)


def test_helpers():
    for n, d in ((8, 1.0), (7, 0.1), (1, 2.0)):
        np.testing.assert_allclose(np.asarray(jnp.fft.fftfreq(n, d)), np.fft.fftfreq(n, d),
                                   rtol=1e-6)
        np.testing.assert_allclose(np.asarray(jnp.fft.rfftfreq(n, d)), np.fft.rfftfreq(n, d),
                                   rtol=1e-6)
    x = np.arange(24).reshape(4, 6)
    for axes in (None, 0, 1, (0, 1), (1,)):
        np.testing.assert_array_equal(np.asarray(jnp.fft.fftshift(x, axes)),
                                      np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(np.asarray(jnp.fft.ifftshift(x, axes)),
                                      np.fft.ifftshift(x, axes))
    assert jnp.fft.fftfreq(4).dtype == np.float32
    assert jnp.fft.fftfreq(4, dtype=np.int32).dtype == np.int32


def test_errors_as_jax():
    with pytest.raises(ValueError, match="Invalid norm"):
        jnp.fft.fft(C1, norm="bogus")
    with pytest.raises(ValueError, match="repeated axes"):
        jnp.fft.fftn(C3, axes=(1, 1))
    with pytest.raises(ValueError, match="different lengths"):
        jnp.fft.fftn(C3, s=(2, 3), axes=(0,))
    with pytest.raises(ValueError, match="multiple axes"):
        jnp.fft.fft(C1, axis=(0, 1))
    with pytest.raises(ValueError, match="only supports 2 axes"):
        jnp.fft.fft2(C3, axes=(0, 1, 2))
    with pytest.raises(ValueError, match="positive"):
        jnp.fft.fft(C1, n=0)
    with pytest.raises(ValueError, match="only real valued"):
        jnp.fft.rfft(C1)
    with pytest.raises(ValueError, match="only takes an int"):
        jnp.fft.fftfreq([3])
