"""`lax.igamma`, `igammac`, `igamma_grad_a`, `random_gamma_grad` and `betainc` give
JAX's bits (not just values within float accuracy): astjax computes JAX's algorithms in
JAX's operation order. The stored words are jax 0.10.2's results on CPU for the inputs
below (series and continued-fraction branches, their boundaries x == a and x == 1, the
betainc reflection), float16 computed in float32 as JAX does."""
import numpy as np
import pytest

import astjax as jax
from astjax import lax

A = [1.0, 2.5, 0.3, 7.0, 30.0, 0.05, 150.0, 3.0]
X = [2.5, 0.7, 0.31, 6.9, 35.0, 1.5, 149.0, 3.0]
BA = [0.5, 2.0, 30.0, 1e-3, 5.0, 200.0]
BB = [0.5, 3.0, 0.2, 4.0, 5.0, 100.0]
BX = [0.3, 0.9, 0.95, 0.5, 0.51, 0.66]

JAX_BITS = {
    "igamma/float16": [0x3b58, 0x2cd9, 0x39dc, 0x3848, 0x3a95, 0x3bf5, 0x37a7, 0x389d],
    "igammac/float16": [0x2d41, 0x3b65, 0x3447, 0x3770, 0x31aa, 0x1d76, 0x382d, 0x36c5],
    "igamma_grad_a/float16": [0xb0b8, 0xaf5f, 0xbaeb, 0xb0ea, 0xa9f1, 0xaf42, 0xa82c, 0xb394],
    "random_gamma_grad/float16": [0x3f30, 0x3836, 0x3e37, 0x3c11, 0x3c57, 0x4b47, 0x3bfb, 0x3c3a],
    "betainc/float16": [0x35e8, 0x3bf8, 0x2663, 0x3c00, 0x3831, 0x3669],
    "igamma/float32": [0x3f6afc7b, 0x3d9b01a2, 0x3f3b8cb3, 0x3f09085e, 0x3f52ad38, 0x3f7ea254, 0x3ef4dd5a, 0x3f13a9cf],
    "igammac/float32": [0x3da81c2a, 0x3f6c9fcc, 0x3e88e69a, 0x3eedef44, 0x3e354b1e, 0x3baed639, 0x3f059153, 0x3ed8ac5d],
    "igamma_grad_a/float32": [0xbe170caa, 0xbdebd3e8, 0xbf5d5b61, 0xbe1d459a, 0xbd3e1502, 0xbde84b7a, 0xbd057ff5, 0xbe728080],
    "random_gamma_grad/float32": [0x3fe6051f, 0x3f06bdbc, 0x3fc6dc0b, 0x3f822571, 0x3f8ae375, 0x4168c4f7, 0x3f7f6d6a, 0x3f874cad],
    "betainc/float32": [0x3ebceee4, 0x3f7f0d84, 0x3ccabb9e, 0x3f7ffe43, 0x3f064bea, 0x3ecbf988],
    "igamma/float64": [0x3fed5f8f47ed617b, 0x3fb36034920ee090, 0x3fe77195c6e4c399, 0x3fe1210da2b042d6, 0x3fea55a4c6aa63e1, 0x3fefd44a72d90d45, 0x3fde9b5314973a02, 0x3fe2753a1332322a],
    "igammac/float64": [0x3fb50385c094f425, 0x3fed93f96dbe23ee, 0x3fd11cd4723678ce, 0x3fddbde4ba9f7a54, 0x3fc6a96ce556707c, 0x3f75dac693795d66, 0x3fe0b25675b462ff, 0x3fdb158bd99b9bc5],
    "igamma_grad_a/float64": [0xbfc2e1966f80e091, 0xbfbd7a7dcd38ae7d, 0xbfebab6af54b3d4a, 0xbfc3a8b566f37565, 0xbfa7c2a943d53ed3, 0xbfbd096e2ca94e7f, 0xbfa0afd2b637f3ad, 0xbfce500f510df4b5],
    "random_gamma_grad/float64": [0x3ffcc0a4defb77d8, 0x3fe0d7b7de0e0bb6, 0x3ff8db812bca2aff, 0x3ff044ae2c59160a, 0x3ff15c6e06142e82, 0x402d189dad76f290, 0x3fefedb5d32cebbd, 0x3ff0e9951b89f0d5],
    "betainc/float64": [0x3fd79ddc9edb54fd, 0x3fefe1b089a02752, 0x3f995789e8acc7a7, 0x3fefffc864ed44c1, 0x3fe0c97e15b49c72, 0x3fd97f0284d9c156],
}
# `random_gamma_grad` is a function of lax operations, not a primitive: eagerly JAX runs
# them one at a time, under `jit` XLA fuses them (one word differs)
JAX_JIT_BITS = {**JAX_BITS,
    "random_gamma_grad/float32": [0x3fe6051f, 0x3f06bdbc, 0x3fc6dc0b, 0x3f822571, 0x3f8ae375, 0x4168c4f7, 0x3f7f6d6c, 0x3f874cad],
    "random_gamma_grad/float64": [0x3ffcc0a4defb77d8, 0x3fe0d7b7de0e0bb6, 0x3ff8db812bca2aff, 0x3ff044ae2c59160a, 0x3ff15c6e06142e82, 0x402d189dad76f28e, 0x3fefedb5d32cebbd, 0x3ff0e9951b89f0d5],
}
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _args(name, dt):
    vals = (BA, BB, BX) if name == "betainc" else (A, X)
    return [np.asarray(v, dt) for v in vals]


@pytest.mark.parametrize("key", sorted(JAX_BITS))
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_bits_as_jax(key, mode, x64):
    name, dt = key.split("/")
    fn = getattr(lax, name)
    got = np.asarray((fn if mode == "eager" else jax.jit(fn))(*_args(name, dt)))
    assert got.dtype == np.dtype(dt)
    assert [hex(int(w)) for w in got.view(_UINT[got.itemsize])] == [
        hex(w) for w in (JAX_BITS if mode == "eager" else JAX_JIT_BITS)[key]]


def test_igammac_fixed_point():
    # the finding: astjax's own continued fraction gave 0.08208483, JAX 0.08208497
    got = lax.igammac(np.float32(1), np.float32(2.5))
    assert np.asarray(got).view(np.uint32) == 0x3da81c2a


def test_constant_operands_as_jax():
    # JAX's jit of constant operands: XLA folds the loop (its evaluator's last bit)
    f = jax.jit(lambda: lax.igammac(np.float32(1), np.float32(2.5)))
    assert np.asarray(f()).view(np.uint32) == 0x3da81c29


NDTRI_Q = [0.3, 0.02, 0.9, 1e-20, 0.999, 0.5, 0.13, 1e-5]
NDTRI_BITS = {
    "float32": [0xbf063f1c, 0xc00370a0, 0x3fa409de, 0xc114328b, 0x4045c66e, 0x0, 0xbf902d98, 0xc08879fc],
    "float64": [0xbfe0c7e39582c5fb, 0xc0006e13e8aadfdc, 0x3ff4813c36e26d32, 0xc022865170b43a4d, 0x4008b8cbb7204470, 0x0, 0xbff205b2b45b9e60, 0xc0110f3f8843a3d9],
}


@pytest.mark.parametrize("dt", sorted(NDTRI_BITS))
def test_ndtri_bits_as_jax(dt, x64):
    # Cephes' rational approximations, as JAX's (astjax had sqrt(2) erf_inv(2p - 1))
    from astjax.scipy.special import ndtri
    got = np.asarray(jax.jit(ndtri)(np.asarray(NDTRI_Q, dt)))
    assert [hex(int(w)) for w in got.view(_UINT[got.itemsize])] == [
        hex(w) for w in NDTRI_BITS[dt]]
