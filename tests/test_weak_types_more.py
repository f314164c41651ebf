"""Silent dtype / weak-type / bit differences from JAX (issue 13), each a minimal
regression. The expected values are JAX 0.10.2's, recorded with real JAX (`.jaxenv`):
a (dtype, weak_type) pair, or the bits (uint32 views, or their sum) of a result.
tests/fuzz/weak_sweep.py sweeps every `jnp` function the same way."""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def _weak(shape, v=2.0):
    return lax.full(shape, v)


def _sig(x):
    return str(x.dtype), bool(x.weak_type)


F32, F32W, I32 = ("float32", False), ("float32", True), ("int32", False)

# name -> (call, JAX's (dtype, weak_type))
CASES = {
    # JAX takes a square 2-D main diagonal through a strong eye: strong
    "diagonal_square": (lambda: jnp.diagonal(_weak((3, 3))), F32),
    "diagonal_wide": (lambda: jnp.diagonal(_weak((2, 3))), F32W),
    "diagonal_offset": (lambda: jnp.diagonal(_weak((3, 3)), 1), F32W),
    "diag_1d": (lambda: jnp.diag(_weak((3,))), F32W),
    "diag_1d_k": (lambda: jnp.diag(_weak((3,)), 1), F32W),
    "diagflat": (lambda: jnp.diagflat(_weak((3,))), F32),
    "diagflat_int": (lambda: jnp.diagflat(_weak((3,), 2)), I32),
    "vander": (lambda: jnp.vander(_weak((3,))), F32),
    "vander_int": (lambda: jnp.vander(_weak((3,), 2)), I32),
    "cross_3": (lambda: jnp.cross(_weak((3,)), _weak((3,))), F32),
    "cross_2": (lambda: jnp.cross(_weak((2,)), _weak((2,))), F32W),
    "associative_scan": (lambda: lax.associative_scan(lax.add, _weak((4,))), F32),
    "associative_scan_1": (lambda: lax.associative_scan(lax.add, _weak((1,))), F32W),
    "lax_pad_strong_value": (lambda: lax.pad(_weak((3,)), np.float32(0), [(1, 1, 1)]), F32),
    "lax_pad_weak_value": (lambda: lax.pad(_weak((3,)), 0.0, [(1, 1, 1)]), F32W),
    "jnp_pad": (lambda: jnp.pad(_weak((3,)), 1), F32W),
    "convolve": (lambda: jnp.convolve(_weak((3,)), _weak((3,))), F32W),
    "polyadd": (lambda: jnp.polyadd(_weak((3,)), _weak((2,))), F32W),
    "fill_diagonal": (lambda: jnp.fill_diagonal(_weak((3, 3)), 1.0, inplace=False), F32W),
    "interp": (lambda: jnp.interp(_weak((3,)), _weak((3,)), _weak((3,))), F32W),
    "interp_scalar": (lambda: jnp.interp(1.0, _weak((3,)), _weak((3,))), F32W),
    # the cotangent of 1.0 (strong) times a weak 0.0 is strong
    "grad_times_zero": (lambda: astjax.grad(_zero_times_sum)(jnp.ones(2)), F32),
    "grad_times_three": (lambda: astjax.grad(_three_times_sum)(jnp.ones(2)), F32),
    # jnp.sum makes a weak operand strong *before* reducing: its transpose makes the
    # cotangent weak again
    "grad_through_sum": (lambda: astjax.grad(_sum_of_double)(_weak((3,))), F32W),
    # reduce_window_sum's transpose pads the cotangent with a zero of its weak type
    "grad_reduce_window": (lambda: astjax.grad(_window_sum)(_weak((4,))), F32W),
    "polydiv": (lambda: jnp.polydiv(_weak((4,)), _weak((2,)))[1], F32W),
}


def _window_sum(x):
    return lax.reduce_window(x, 0.0, lax.add, (2,), (1,), "SAME").sum()


def _zero_times_sum(x):
    return 0.0 * x.sum()


def _three_times_sum(x):
    return 3.0 * x.sum()


def _sum_of_double(x):
    return (x * 2.0).sum()


@pytest.mark.parametrize("name", sorted(CASES))
def test_dtype_and_weak_type_match_jax(name):
    call, want = CASES[name]
    assert _sig(call()) == want


def _complex_grid():
    vals = [0, 1, -0.0, np.inf, -np.inf, np.nan, 1e-30, 100, 0.5, -2.5]
    return np.array([complex(a, b) for a in vals for b in vals], np.complex64)


def _bits_sum(x):
    return int(np.asarray(x).view(np.uint32).astype(np.int64).sum() % (2 ** 61 - 1))


def test_complex_sin_cos_bits():
    # JAX expands complex sin / cos into real sine, cosine and expm1 (not stablehlo's
    # complex sine); zero, infinite and NaN parts included
    z = _complex_grid()
    assert _bits_sum(jnp.sin(z)) == 458362356810
    assert _bits_sum(jnp.cos(z)) == 423673552217
    assert np.asarray(jnp.sin(np.complex64(1 + 1j) * np.ones(2))).view(np.uint32).tolist() \
        == [1067856859, 1059228926] * 2


def test_vander_bits_are_powers():
    # x ** k by `power`, not by repeated products
    x = np.array([1.1, 2.3, 0.7, -3.3], np.float32)
    assert _bits_sum(jnp.vander(x, 7)) == 36708957242


def test_interp_values():
    # a step narrower than eps (wider than its spacing) interpolates
    assert float(jnp.interp(np.float32(5e-9), np.array([0, 1e-8], np.float32),
                            np.array([0., 1.], np.float32))) == 0.5
    # x / xp promote apart from fp: the position within a step is float16 arithmetic
    x = np.random.default_rng(0).uniform(0, 3, 16).astype(np.float16)
    r = jnp.interp(x, np.array([0, 0.7, 1.3, 3], np.float16),
                   np.array([0.1, 1.3, 2.9, 7.7], np.float32))
    assert r.dtype == np.float32 and _bits_sum(r) == 17174171645


def test_associative_scan_interleave_bits():
    # JAX interleaves by zero padding and adding: a -0.0 comes out +0.0
    r = lax.associative_scan(jnp.minimum, jnp.array([-0.0, 1., -0.0, 2., 3.]))
    assert np.asarray(r).view(np.uint32).tolist() == [0] * 5


def _double(x):
    return x * 2


def _times(x, y):
    return x * y


@pytest.mark.parametrize("t", [3, 3.0, np.int32(3), np.zeros(2, astjax.dtypes.float0)])
def test_linearize_rejects_inconsistent_int_tangent(t):
    _, f = astjax.linearize(_double, 2)
    with pytest.raises(ValueError, match="inconsistent with the original primal"):
        f(t)


@pytest.mark.parametrize("t", [3, np.float16(3), np.ones(2, np.float32)])
def test_linearize_rejects_inconsistent_float_tangent(t):
    _, f = astjax.linearize(_double, 2.0)
    with pytest.raises(ValueError, match="inconsistent with the original primal"):
        f(t)


def test_linearize_accepts_consistent_tangents():
    _, f = astjax.linearize(_double, 2)
    assert f(np.zeros((), astjax.dtypes.float0)).dtype == astjax.dtypes.float0
    _, f = astjax.linearize(_double, 2.0)
    assert _sig(f(3.0)) == F32W and _sig(f(np.float32(3))) == F32


def test_float0_results_have_weak_type():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = astjax.grad(_times, argnums=1, allow_int=True)(2.0, 3)
        gj = astjax.jit(astjax.grad(_times, argnums=1, allow_int=True))(2.0, 3)
        ct = astjax.vjp(_times, 2.0, 3)[1](1.0)[1]
    for x in (g, gj, ct):
        assert x.dtype == astjax.dtypes.float0 and x.weak_type is False


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32])
def test_cumlogsumexp_of_ints_overflows(dt):
    x = jnp.ones(3, dt)
    # as JAX: abstract evaluation answers, lowering cannot make -inf an integer
    assert astjax.eval_shape(lax.cumlogsumexp, x).dtype == dt
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        lax.cumlogsumexp(x)
    with pytest.raises(TypeError):
        lax.cumlogsumexp(jnp.ones(3, bool))


# ------------------------------------------------------ elementwise functions (sweep)
# (dtype, weak_type, bytes) of JAX 0.10.2's results on a weak 3-vector ("w"), a Python
# scalar ("py"), float32 / complex64 edge values ("x", "c") and operand pairs; an error
# by its builtin class
_X = np.array([0, -0.0, 1e30, -1e30, np.inf, -np.inf, np.nan, 3, 1e-30, 4], np.float32)
_Y = np.array([0, 0, 1e30, 3, np.nan, 1, np.inf, 4, 1e-30, np.nan], np.float32)
JAX_ELEMENTWISE = """
deg2rad/w ('float32', False, '35fa0e3c35fa0e3c35fa0e3c')
deg2rad/py ('float32', True, '35fa0e3c')
deg2rad/x ('float32', False, '00000000000000801a94616e1a9461ee0000807f000080ff0000c07f5077563dcf3eb50a35fa8e3d')
deg2rad/c ('complex64', False, '000000000000000000000000000000001a94616e1a94616e1a9461ee5077563d0000c07f0000c07f000080ff0000c0ff0000c07f0000c07f5077563d35fa8e3dcf3eb50acf3eb50a0000c07f0000c07f')
rad2deg/w ('float32', False, 'e12ee541e12ee541e12ee541')
rad2deg/py ('float32', True, 'e12ee541')
rad2deg/x ('float32', False, '00000000000000802acb34742acb34f40000807f000080ff0000c07f29e32b4316439110e12e6543')
rad2deg/c ('complex64', False, '000000000000000000000000000000002acb34742acb34742acb34f429e32b430000c07f0000c07f000080ff0000c0ff0000c07f0000c07f29e32b43e12e654316439110164391100000c07f0000c07f')
isinf/w ('bool', False, '000000')
isinf/py ('bool', False, '00')
isinf/x ('bool', False, '00000000010100000000')
isinf/c ('bool', False, '00000000000101000000')
logical_not/w ('bool', False, '000000')
logical_not/py ('bool', True, '00')
logical_not/x ('bool', False, '01010000000000000000')
logical_not/c ('bool', False, '01010000000000000000')
iscomplex/w ('bool', False, '000000')
iscomplex/py ('bool', True, '00')
iscomplex/x ('bool', False, '00000000000000000000')
iscomplex/c ('bool', False, '00000101010101010101')
isreal/w ('bool', False, '010101')
isreal/py ('bool', True, '01')
isreal/x ('bool', False, '01010101010101010101')
isreal/c ('bool', False, '01010000000000000000')
sinc/w ('float32', False, '83f9223f83f9223f83f9223f')
sinc/py ('float32', True, '83f9223f')
sinc/x ('float32', False, '0000803f0000803fbfa4a18cbfa4a18c0000c0ff0000c0ff0000c07fb3e52db10000803f6509ef32')
sinc/c ('complex64', False, '0000803f000000000000803f00000000000080ff0000c0ffaf82f4924f9dc2120000c07f0000c07f0000c0ff0000c0ff0000c07f0000c07f8430e4c56324abc50000803f000000000000c07f0000c07f')
isposinf/w ('bool', False, '000000')
isposinf/py ('bool', False, '00')
isposinf/x ('bool', False, '00000000010000000000')
isposinf/c ValueError
isneginf/w ('bool', False, '000000')
isneginf/py ('bool', False, '00')
isneginf/x ('bool', False, '00000000000100000000')
isneginf/c ValueError
hypot/w ('float32', False, 'f304353ff304353ff304353f')
hypot/py ('float32', True, 'f304353f')
hypot/x ('float32', False, '000000000000000090cc8e71caf249710000807f0000807f0000807f0000a0402278e50d0000c07f')
hypot/pw ('float32', False, 'f304353ff304353ff304353f')
heaviside/w ('float32', False, '0000803f0000803f0000803f')
heaviside/py ('float32', True, '0000803f')
heaviside/x ('float32', False, '00000000000000000000803f000000000000803f000000000000c07f0000803f0000803f0000803f')
heaviside/pw ('float32', True, '0000803f0000803f0000803f')
sinc_d1 0.0
sinc_d2 -3.2898683547973633
sinc_vg 00000000000000005d184a8d5d184a0d0000c0ff0000c0ff0000c07fabaaaabe000080ff0000803e
"""


def _elementwise_outcomes():
    w = _weak((3,), 0.5)
    with np.errstate(invalid="ignore"):   # (inf * 1j)
        c = (_X + 1j * _Y).astype(np.complex64)
    out = {}

    def record(key, call):
        try:
            r = call()
            out[key] = repr((str(r.dtype), bool(r.weak_type), np.asarray(r).tobytes().hex()))
        except ValueError:
            out[key] = "ValueError"
    for name in ["deg2rad", "rad2deg", "isinf", "logical_not", "iscomplex", "isreal", "sinc",
                 "isposinf", "isneginf"]:
        for lab, a in (("w", w), ("py", 0.5), ("x", _X), ("c", c)):
            record(f"{name}/{lab}", lambda: getattr(jnp, name)(a))
    for name in ["hypot", "heaviside"]:
        for lab, a, b in (("w", w, w), ("py", 0.5, 0.5), ("x", _X, _Y), ("pw", 0.5, w)):
            record(f"{name}/{lab}", lambda: getattr(jnp, name)(a, b))
    f = jnp.sinc
    for i in (1, 2):
        f = astjax.grad(f)
        out[f"sinc_d{i}"] = repr(float(f(0.0)))
    out["sinc_vg"] = np.asarray(astjax.vmap(astjax.grad(jnp.sinc))(_X)).tobytes().hex()
    return out


def test_elementwise_functions_match_jax():
    # weak types (a strong constant makes a weak array's result strong), hypot without
    # overflow, isinf of complex part by part, sinc's derivatives at 0 (its Maclaurin
    # custom JVP), isposinf / isneginf rejecting complex values
    want = dict(line.split(" ", 1) for line in JAX_ELEMENTWISE.strip().splitlines())
    got = _elementwise_outcomes()
    assert set(got) == set(want)
    bad = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    assert not bad, bad


def _bytes_digest(r):
    b = np.frombuffer(np.asarray(r).tobytes(), np.uint8).astype(np.int64)
    return int(b @ np.arange(b.size))


def test_vecdot_is_a_batched_dot():
    # as JAX's vectorized vdot: one dot in the operands' dtype (int8 stays int8, a weak
    # pair stays weak), preferred_element_type honoured, the dot's bits
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4, 3, 7)).astype(np.float32)
    b = rng.normal(size=(3, 7)).astype(np.float32)
    i8 = np.int8
    cases = [((a, b), {}, ("float32", False, (4, 3), 154924)),
             ((a.astype(i8), b.astype(i8)), {}, ("int8", False, (4, 3), 1020)),
             ((_weak((3,), 0.5), _weak((3,), 0.5)), {}, ("float32", True, (), 317)),
             ((a + 1j * a, b - 2j * b), {}, ("complex64", False, (4, 3), 592945)),
             ((a.astype(i8), b.astype(i8)), dict(preferred_element_type=np.int32),
              ("int32", False, (4, 3), 17850)),
             ((a.astype(np.float16), b), {}, ("float32", False, (4, 3), 142501))]
    for args, kw, want in cases:
        r = jnp.vecdot(*args, **kw)
        assert (str(r.dtype), bool(r.weak_type), r.shape, _bytes_digest(r)) == want
    with pytest.raises(ValueError, match="axes must match"):
        jnp.vecdot(a, b[:, :5])


def test_logaddexp2_in_base_two():
    # JAX's: exp2 / log1p scaled by 1/ln 2, its phase wrap for complex values, its JVP
    x = np.array([0, -0.0, 1e30, -1e30, np.inf, -np.inf, np.nan, 3, 1e-30, 4, 0.5, 0.75],
                 np.float32)
    y = np.array([0, 0, 1e30, 3, np.nan, 1, np.inf, 4, 1e-30, np.nan, 1.25, -2], np.float32)
    with np.errstate(invalid="ignore"):
        cx, cy = (x + 1j * y).astype(np.complex64), (y - 0.5j * x).astype(np.complex64)
    cases = [((x, y), ("float32", False, 90412)),
             ((x.astype(np.float16), y.astype(np.float16)), ("float16", False, 20916)),
             ((cx, cy), ("complex64", False, 593905)),
             ((_weak((2,), 0.5), _weak((2,), 0.25)), ("float32", False, 3328)),
             ((0.5, 0.25), ("float32", True, 718))]
    for args, want in cases:
        r = jnp.logaddexp2(*args)
        assert (str(r.dtype), bool(r.weak_type), _bytes_digest(r)) == want
    gx, gy = astjax.vmap(astjax.grad(jnp.logaddexp2, argnums=(0, 1)))(x, y)
    assert (_bytes_digest(gx), _bytes_digest(gy)) == (102046, 87245)
    assert float(astjax.grad(astjax.grad(jnp.logaddexp2))(0.5, 0.25)) == 0.17199240624904633


def test_i0_and_bessel_i0e_bits():
    # JAX's i0 is exp(|x|) * i0e(|x|) (no power series: large |x| keep their precision),
    # its i0e Cephes' Chebyshev expansions; complex values are a ValueError
    x = np.array([0, -0.0, 1, -2.5, 12, 30, 80, 100, np.inf, np.nan, 1e-20, 0.7], np.float32)
    cases = [(x, ("float32", False, 103489)), (x.astype(np.float16), ("float16", False, 20105)),
             (_weak((2,), 0.5), ("float32", True, 2142)), (0.5, ("float32", True, 493)),
             (np.arange(4, dtype=np.int8), ("float32", False, 11941))]
    for a, want in cases:
        r = jnp.i0(a)
        assert (str(r.dtype), bool(r.weak_type), _bytes_digest(r)) == want
    z = np.array([0, 1, 2.5, 7.9, 8, 8.1, 12, 30, 80, 100, 0.7, 1e-20], np.float32)
    assert np.asarray(lax.bessel_i0e(z)).view(np.uint32).tolist() == [
        1065353217, 1055815692, 1049248648, 1041487282, 1041424329, 1041362588, 1039036638,
        1033227658, 1027013464, 1025744055, 1057959590, 1065353217]
    assert float(astjax.grad(jnp.i0)(0.0)) == 0.0
    with pytest.raises(ValueError, match="Unsupported input type"):
        jnp.i0(np.ones(2, np.complex64))


def test_poly_of_a_scalar_and_a_matrix():
    # as JAX: a scalar is one root, a square matrix gives its characteristic polynomial
    assert np.asarray(jnp.poly(0.5)).tolist() == [1.0, -0.5]
    m = (np.arange(9).reshape(3, 3) % 5 + 1).astype(np.float32) / 4
    r = jnp.poly(m)
    assert r.dtype == np.complex64 and r.shape == (4,)
    np.testing.assert_allclose(np.asarray(r), [1, -2.5, 0.75, 0.0781], atol=1e-4)
    assert jnp.poly(np.zeros((0,), np.float32)).shape == ()
    with pytest.raises(ValueError, match="square 2d"):
        jnp.poly(np.ones((2, 3)))


def test_unique_and_set_operations_keep_weak_types():
    # JAX's: values gathered from (sorted concatenations of) the operands, weak when
    # every operand whose values they are is weak
    w, s = _weak((3,), 0.5), jnp.array([0.5, 1.0])
    for f in (jnp.unique, jnp.unique_values):
        assert f(w).weak_type and not f(s).weak_type
    assert jnp.unique(w, return_counts=True)[0].weak_type
    want = {jnp.setdiff1d: (True, True, False, False), jnp.intersect1d: (True, False, False, False),
            jnp.setxor1d: (True, False, False, False), jnp.union1d: (True, False, False, False)}
    for f, flags in want.items():
        assert tuple(f(a, b).weak_type for a, b in ((w, w), (w, s), (s, w), (s, s))) == flags


def test_trapezoid_as_jax():
    # values made inexact first (int8 100 + 100 overflowed), JAX's constant-spacing
    # formula (its bits), strong for a weak y (dx is a weak Python float)
    assert float(jnp.trapezoid(np.array([100, 100], np.int8))) == 100.0
    rng = np.random.default_rng(2)
    y = rng.normal(size=(3, 5)).astype(np.float32)
    xs = np.cumsum(rng.uniform(0.1, 1, 5)).astype(np.float32)
    cases = [((y,), {}, ("float32", False, (3,), 6801)),
             ((y,), dict(dx=0.3), ("float32", False, (3,), 9105)),
             ((y,), dict(axis=0), ("float32", False, (5,), 25988)),
             ((y, xs), {}, ("float32", False, (3,), 7142)),
             ((y.astype(np.float16),), {}, ("float16", False, (3,), 2085)),
             ((_weak((4,), 0.5),), {}, ("float32", False, (), 573)),
             ((y,), dict(dx=np.array([0.5, 0.25, 0.125], np.float32)[:, None]),
              ("float32", False, (3,), 8305))]
    for args, kw, want in cases:
        r = jnp.trapezoid(*args, **kw)
        assert (str(r.dtype), bool(r.weak_type), r.shape, _bytes_digest(r)) == want
