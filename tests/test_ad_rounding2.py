"""Derivative rules in JAX's exact form: each gradient is JAX's expression, operation
for operation, so it rounds as JAX's (the same mathematical value computed in another
order rounds otherwise in the last bit, and a training loop drifts apart). Recorded
against jax 0.10.2: the float32 bits of `jit(vmap(grad(lambda x, w: f(x) * w)))` (`2`:
of the second derivative; `pow_jvp`: a forward tangent in both operands) on inputs
where astjax's former rule rounded otherwise."""
import numpy as np
import pytest

import astjax
from astjax import lax


def _inputs(lo, hi):
    rs = np.random.RandomState(0)
    return rs.uniform(lo, hi, 4000).astype(np.float32), rs.uniform(0.5, 2, 4000).astype(np.float32)


def _first(f):
    return astjax.jit(astjax.vmap(astjax.grad(lambda x, w: f(x) * w)))


def _second(f):
    return astjax.jit(astjax.vmap(astjax.grad(lambda x, w: astjax.grad(f)(x) * w)))


CASES = {
    "sqrt": (_first(lax.sqrt), (0.01, 100)),
    "sqrt2": (_second(lax.sqrt), (0.01, 100)),
    "exp2": (_first(lax.exp2), (-10, 10)),
    "atanh": (_first(lax.atanh), (-0.99, 0.99)),
    "atanh2": (_second(lax.atanh), (-0.99, 0.99)),
    "erf": (_first(lax.erf), (-3, 3)),
    "erfc": (_first(lax.erfc), (-3, 3)),
    "erf_inv": (_first(lax.erf_inv), (-0.99, 0.99)),
    "erf_inv2": (_second(lax.erf_inv), (-0.99, 0.99)),
    "igamma_x": (_first(lambda x: lax.igamma(lax.stop_gradient(x * 0.75 + 0.5), x)), (0.1, 5)),
    "igammac_x": (_first(lambda x: lax.igammac(lax.stop_gradient(x * 0.75 + 0.5), x)),
                  (0.1, 5)),
    "betainc_x": (_first(lambda x: lax.betainc(lax.full_like(x, 2.5), lax.full_like(x, 1.5), x)),
                  (0.01, 0.99)),
    "pow_jvp": (astjax.jit(astjax.vmap(lambda x, w: astjax.jvp(lax.pow, (x, w), (w, w))[1])),
                (0.1, 5)),
}

# jax 0.10.2 on the same 8 inputs (indices into `_inputs`): the result's bits
JAX_BITS = {
    "sqrt": (
        [6, 9, 11, 12, 15, 18, 22, 24],
        [0x3d4fcc04, 0x3e23c0e1, 0x3d645192, 0x3e0280a4,
         0x3e98be6b, 0x3dd10e94, 0x3de4eab1, 0x3e475ded]),
    "sqrt2": (
        [5, 11, 14, 33, 35, 36, 40, 41],
        [0xba06e6e9, 0xba0a20e6, 0xbc99be2d, 0xb9fb4bc2,
         0xba4235b7, 0xba2c37a4, 0xbaf4561a, 0xba316fd9]),
    "exp2": (
        [0, 2, 5, 10, 13, 14, 16, 17],
        [0x3fa3e595, 0x400230fd, 0x40b32091, 0x41fad5d2,
         0x43e357c2, 0x3b292133, 0x3a3f4b8c, 0x42fc8dfb]),
    "atanh": (
        [3, 4, 5, 6, 7, 8, 9, 10],
        [0x3f84304f, 0x3f17e7fe, 0x3f953bec, 0x3f2e7fbb,
         0x4057c43c, 0x4114dcdb, 0x4005e464, 0x3f98451b]),
    "atanh2": (
        [0, 1, 2, 3, 4, 5, 6, 7],
        [0x3e3d616c, 0x3fdbc851, 0x3ea01b3e, 0x3e3d7491,
         0xbe3bff4c, 0x3f3c22eb, 0xbe2f3030, 0x41521f61]),
    "erf": (
        [1, 2, 7, 12, 13, 14, 18, 20],
        [0x3e933b8f, 0x3f0b774a, 0x3bc5c95c, 0x3feadf65,
         0x3b43ad47, 0x3b0bcffe, 0x3e00686e, 0x39c3c830]),
    "erfc": (
        [1, 2, 7, 12, 13, 14, 18, 20],
        [0xbe933b8f, 0xbf0b774a, 0xbbc5c95c, 0xbfeadf65,
         0xbb43ad47, 0xbb0bcffe, 0xbe00686e, 0xb9c3c830]),
    "erf_inv": (
        [1, 6, 8, 11, 14, 22, 23, 24],
        [0x3fb3564e, 0x3f1a22ef, 0x40bc487c, 0x3f386cb1,
         0x4062e2e7, 0x3fad1230, 0x3fe2831f, 0x4015b3b5]),
    "erf_inv2": (
        [2, 4, 6, 12, 13, 15, 16, 21],
        [0x3e5d50c5, 0xbe02597a, 0xbdf33ff7, 0x3ebec790,
         0x41a6d0be, 0xc176cde5, 0xc2a509cd, 0x405d5c84]),
    "igamma_x": (
        [4, 7, 8, 19, 21, 27, 37, 38],
        [0x3e18d3b5, 0x3e6167df, 0x3e6950c8, 0x3e14c72a,
         0x3eaaa385, 0x3e3d57a6, 0x3e342ef0, 0x3dbc82e7]),
    "igammac_x": (
        [4, 7, 8, 19, 21, 27, 37, 38],
        [0xbe18d3b5, 0xbe6167df, 0xbe6950c8, 0xbe14c72a,
         0xbeaaa385, 0xbe3d57a6, 0xbe342ef0, 0xbdbc82e7]),
    "betainc_x": (
        [6, 10, 18, 29, 30, 34, 45, 46],
        [0x3f3e947c, 0x3fa69796, 0x403e19a6, 0x3fd5219a,
         0x3f5bd0a7, 0x3c735915, 0x4039a85c, 0x3ec844f3]),
    "pow_jvp": (
        [4, 5, 7, 9, 10, 12, 14, 15],
        [0x3f733510, 0x40b6e66c, 0x419030e3, 0x414e2993,
         0x406f9fa8, 0x41cac95f, 0x3f8a0862, 0x3fc52d6c]),
}


@pytest.mark.parametrize("name", list(JAX_BITS))
def test_derivative_bits_as_jax(name):
    fn, dom = CASES[name]
    rows, bits = JAX_BITS[name]
    x, w = _inputs(*dom)
    got = np.asarray(fn(x[rows], w[rows])).view(np.uint32)
    assert [hex(v) for v in got] == [hex(v) for v in bits]


def test_pow_integer_exponent_zero_has_zero_derivative_at_zero():
    # JAX: d/dx x**0 is 0 for an integer exponent, at x = 0 too (a floating 0 gives NaN)
    x = np.array([0.0, 2.0, 0.0], np.float32)
    y = np.array([0, 0, 2], np.int32)
    g = astjax.grad(lambda x: lax.pow(x, y).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), [0.0, 0.0, 0.0])
    gf = astjax.grad(lambda x: lax.pow(x, np.float32(0)).sum())(x)
    assert np.isnan(np.asarray(gf)[0]) and np.asarray(gf)[1] == 0


def test_incomplete_gamma_x_derivative_nan_at_zero_as_jax():
    # JAX's density -x + (a - 1) log x - lgamma(a) is NaN at a = 1, x = 0 (0 * log 0)
    assert np.isnan(float(astjax.grad(lax.igamma, 1)(1.0, 0.0)))
    assert np.isnan(float(astjax.grad(lax.igammac, 1)(1.0, 0.0)))
    assert np.isnan(float(astjax.grad(lax.betainc, 2)(1.0, 2.0, 0.0)))
    assert float(astjax.grad(lax.igamma, 1)(2.0, 0.0)) == 0.0
