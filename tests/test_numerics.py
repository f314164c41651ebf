"""Numerics of primitives and their transforms (issue 12: R10, R16, complex
derivatives, integer semantics). Expected values were recorded from jax 0.10.2 (JAX
is not needed to run these tests) or come from float64 NumPy."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

# ---------------------------------------------------------------- abs at 0 (R16)


@pytest.mark.parametrize("x,want", [(0.0, 1.0), (-0.0, 1.0), (2.0, 1.0), (-2.0, -1.0)])
def test_grad_abs_follows_jax_at_zero(x, want):
    """JAX: d|x| = select(x >= 0, t, -t), so the derivative at 0 (and -0) is 1."""
    assert float(astjax.grad(jnp.abs)(x)) == want
    assert float(astjax.jit(astjax.grad(jnp.abs))(x)) == want


def test_jvp_abs_vector_at_zero():
    _, t = astjax.jvp(jnp.abs, (jnp.array([0.0, -0.0, -1.0]),), (jnp.array([1.0, 1.0, 1.0]),))
    np.testing.assert_array_equal(np.asarray(t), [1.0, 1.0, -1.0])

# --------------------------------------------------------- complex derivatives


Z = np.complex64(1 + 2j)
CT = np.complex64(0.3 - 0.7j)
X, Y = np.float32(0.5), np.float32(-1.5)

# (name, thunk, value recorded from jax 0.10.2)
COMPLEX = [
    ("abs_zz", lambda: astjax.grad(lambda z: jnp.abs(z * z))(Z), 2 - 4j),
    ("abs_z", lambda: astjax.grad(jnp.abs)(Z), 0.4472135901451111 - 0.8944271802902222j),
    ("abs_0", lambda: astjax.grad(jnp.abs)(np.complex64(0)), 0j),
    ("real_zz", lambda: astjax.grad(lambda z: jnp.real(z * z))(Z), 2 + 4j),
    ("imag_zz", lambda: astjax.grad(lambda z: jnp.imag(z * z))(Z), 4 - 2j),
    ("conj", lambda: astjax.grad(lambda z: jnp.real(jnp.conj(z) * (2 + 1j)))(Z), 2 - 1j),
    ("angle", lambda: astjax.grad(jnp.angle)(Z), -0.4 - 0.2j),
    ("angle_sq", lambda: astjax.grad(lambda z: jnp.angle(z * z * 1j))(Z), -0.8 - 0.4j),
    ("div", lambda: astjax.grad(lambda z: jnp.real(z / (z + 2)))(Z),
     0.059171587228775024 - 0.1420118361711502j),
    ("div2", lambda: astjax.grad(lambda z: jnp.imag((3 - 1j) / z))(Z), 0.36 - 0.52j),
    ("recip_abs", lambda: astjax.grad(lambda z: jnp.abs(1 / z))(Z),
     -0.08944272249937057 + 0.17888543009757996j),
    ("complex_xy", lambda: astjax.grad(lambda x, y: jnp.abs(lax.complex(x, y) ** 2),
                                       argnums=(0, 1))(X, Y), (1.0, -3.0)),
    ("complex_imag", lambda: astjax.grad(lambda x, y: jnp.imag(lax.complex(x, y) * (1 + 2j)),
                                         argnums=(0, 1))(X, Y), (2.0, 1.0)),
    ("vjp_sq", lambda: astjax.vjp(lambda z: z * z, Z)[1](CT), (3.4 - 0.2j,)),
    ("vjp_conj", lambda: astjax.vjp(lambda z: jnp.conj(z) * 2, Z)[1](CT), (0.6 + 1.4j,)),
    ("vjp_complex", lambda: astjax.vjp(lax.complex, X, Y)[1](CT), (0.3, 0.7)),
    ("vjp_real", lambda: astjax.vjp(jnp.real, Z)[1](np.float32(0.3)), (0.3 + 0j,)),
    ("vjp_imag", lambda: astjax.vjp(jnp.imag, Z)[1](np.float32(0.3)), (-0.3j,)),
    ("vjp_abs", lambda: astjax.vjp(jnp.abs, Z)[1](np.float32(0.3)),
     (0.13416408002376556 - 0.26832816004753113j,)),
    ("jvp_abs", lambda: astjax.jvp(jnp.abs, (Z,), (CT,)), (2.2360680103302, -0.4919348955154419)),
    ("jvp_abs0", lambda: astjax.jvp(jnp.abs, (np.complex64(0),), (CT,)), (0.0, 0.0)),
    ("jvp_angle", lambda: astjax.jvp(jnp.angle, (Z,), (CT,)), (1.1071487665176392, -0.26)),
    ("vjp_div", lambda: astjax.vjp(lambda z: z / (z + 2), Z)[1](CT),
     (-0.0816568061709404 - 0.08402364701032639j,)),
]


@pytest.mark.parametrize("name,thunk,want", COMPLEX, ids=[c[0] for c in COMPLEX])
def test_complex_derivatives_match_jax(name, thunk, want):
    got = thunk()
    got = [np.asarray(g) for g in got] if isinstance(got, (tuple, list)) else [np.asarray(got)]
    want = list(want) if isinstance(want, tuple) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)
        # a real function's tangent is real; a complex input's cotangent is complex
        assert np.iscomplexobj(g) == isinstance(w, complex)


def test_complex_transpose_is_consistent_with_imag():
    """imag(complex(x, y)) == y, so its gradient in y is 1 and in x is 0."""
    gx, gy = astjax.grad(lambda x, y: jnp.imag(lax.complex(x, y)), argnums=(0, 1))(X, Y)
    assert (float(gx), float(gy)) == (0.0, 1.0)

# --------------------------------------------------------- zero-length loops (R16)


def _scan_sum(c, x):
    c2, ys = lax.scan(lambda c, v: (c * v + 1.0, c * v), c, x)
    return c2 + jnp.sum(ys)


def _fori_dyn(c, lo):
    return lax.fori_loop(lo, 2, lambda i, c: c * c + i, c)


def _while0(c):
    return lax.while_loop(lambda s: s[0] < 0, lambda s: (s[0] + 1, s[1] * 2.0), (0, c))[1]


E, E2 = np.zeros(0, np.float32), np.zeros((3, 0), np.float32)
ZERO_TRIPS = [
    ("scan_eager", lambda: lax.scan(lambda c, v: (c + v, c), 0., E), (0.0, np.zeros(0))),
    ("scan_jit", lambda: astjax.jit(lambda x: lax.scan(lambda c, v: (c + v, c), 0., x))(E),
     (0.0, np.zeros(0))),
    ("scan_length0", lambda: astjax.jit(
        lambda c: lax.scan(lambda c, _: (c * 2, c), c, None, length=0))(3.), (3.0, np.zeros(0))),
    ("scan_reverse", lambda: astjax.jit(
        lambda x: lax.scan(lambda c, v: (c + v, c), 0., x, reverse=True))(E), (0.0, np.zeros(0))),
    ("scan_unroll", lambda: astjax.jit(
        lambda x: lax.scan(lambda c, v: (c + v, c), 0., x, unroll=4))(E), (0.0, np.zeros(0))),
    ("scan_grad", lambda: astjax.grad(_scan_sum, argnums=(0, 1))(2., E), (1.0, np.zeros(0))),
    ("scan_jitgrad", lambda: astjax.jit(astjax.grad(_scan_sum, argnums=(0, 1)))(2., E),
     (1.0, np.zeros(0))),
    ("scan_vmap", lambda: astjax.vmap(_scan_sum)(jnp.ones(3), E2), np.ones(3)),
    ("scan_vmapgrad", lambda: astjax.vmap(astjax.grad(_scan_sum, argnums=(0, 1)))(jnp.ones(3), E2),
     (np.ones(3), np.zeros((3, 0)))),
    ("map_jit", lambda: astjax.jit(lambda x: lax.map(jnp.sin, x))(np.zeros((0, 2), np.float32)),
     np.zeros((0, 2))),
    ("map_grad", lambda: astjax.grad(lambda x: jnp.sum(lax.map(jnp.sin, x)))(
        np.zeros((0, 2), np.float32)), np.zeros((0, 2))),
    ("fori_eager", lambda: _fori_dyn(3., 2), 3.0),
    ("fori_jit", lambda: astjax.jit(_fori_dyn)(3., 2), 3.0),
    ("fori_static_grad", lambda: astjax.grad(
        lambda c: lax.fori_loop(2, 2, lambda i, c: c * c, c))(3.), 1.0),
    ("fori_static_jitgrad", lambda: astjax.jit(astjax.grad(
        lambda c: lax.fori_loop(2, 2, lambda i, c: c * c, c)))(3.), 1.0),
    ("fori_static_vmap", lambda: astjax.vmap(
        lambda c: lax.fori_loop(2, 2, lambda i, c: c * c, c))(jnp.arange(3.)), [0.0, 1.0, 2.0]),
    ("fori_dyn_grad", lambda: astjax.grad(_fori_dyn)(3., 2), 1.0),
    ("fori_dyn_vmap", lambda: astjax.vmap(_fori_dyn)(jnp.arange(3.), jnp.array([2, 2, 2])),
     [0.0, 1.0, 2.0]),
    ("fori_dyn_vmap_mixed", lambda: astjax.vmap(_fori_dyn)(jnp.arange(3.), jnp.array([2, 1, 0])),
     [0.0, 2.0, 17.0]),
    ("while_eager", lambda: _while0(3.), 3.0),
    ("while_jit", lambda: astjax.jit(_while0)(3.), 3.0),
    ("while_vmap", lambda: astjax.vmap(_while0)(jnp.arange(3.)), [0.0, 1.0, 2.0]),
    ("while_jvp", lambda: astjax.jvp(_while0, (3.,), (1.,)), (3.0, 1.0)),
    ("while_grad", lambda: astjax.grad(_while0)(3.), 1.0),
]


@pytest.mark.parametrize("name,thunk,want", ZERO_TRIPS, ids=[c[0] for c in ZERO_TRIPS])
def test_zero_trip_loops(name, thunk, want):
    """A loop that runs zero times passes its carry through; its ys are zero-size."""
    got = thunk()
    got = [np.asarray(g) for g in got] if isinstance(got, tuple) else [np.asarray(got)]
    want = list(want) if isinstance(want, tuple) else [want]
    for g, w in zip(got, want):
        w = np.asarray(w, np.float32)
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)

# ------------------------------------------------ max's derivative in a loop (R10)


def test_grad_max_in_short_loop_is_finite():
    """XLA CPU evaluates the updated `t` in two fusions, one of which contracts an FMA:
    `t == t.max()` is all False at step 2. The derivative must not depend on two
    evaluations being bit-identical. Value: JAX's eager grad (float64 central differences agree
    to 1e-9)."""
    def f(t, kk):
        t = (1.5 + t) ** 2
        for i in range(3):
            t = t.at[kk // 2].add(jnp.tanh(t.max()))
        return jnp.sum(t)

    old = astjax.config.read("jax_enable_x64")
    astjax.config.update("jax_enable_x64", True)
    try:
        t = jnp.array([-0.8062840670485831, -0.10513447063354907, -1.2265945666876013])
        want = [1.3874318659028337, 3.0493557662016872, 0.5468108666247975]
        np.testing.assert_allclose(np.asarray(astjax.grad(f)(t, 2)), want, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(astjax.jit(astjax.grad(f), static_argnums=1)(t, 2)),
                                   want, rtol=1e-12)
    finally:
        astjax.config.update("jax_enable_x64", old)


@pytest.mark.parametrize("fn,x,want", [
    (jnp.max, [2.0, 1.0, 2.0], [0.5, 0.0, 0.5]),
    (jnp.max, [1.0, np.inf, 2.0], [0.0, 1.0, 0.0]),
    (jnp.max, [-np.inf, -np.inf], [0.5, 0.5]),
    (lambda x: jnp.min(x, axis=(0, 2)).sum(), [[[2., 1.], [0., 2.]], [[1., 1.], [3., 0.]]],
     [[[0., 1 / 3], [0.5, 0.]], [[1 / 3, 1 / 3], [0., 0.5]]]),
])
def test_grad_max_min_ties_follow_jax(fn, x, want):
    """Ties share the derivative equally (JAX's values)."""
    x = np.asarray(x, np.float32)
    np.testing.assert_allclose(np.asarray(astjax.grad(fn)(x)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(astjax.jit(astjax.grad(fn))(x)), want, rtol=1e-6)

# ------------------------------------------- integer division by zero, ** -1, solve


I32 = np.array([-3, -1, 0, 1, 3], np.int32)
U32 = np.array([0, 1, 2, 7], np.uint32)
_UMAX = 4294967295

# (name, thunk, value recorded from jax 0.10.2)
INTEGER = [
    ("i32_mod0", lambda: I32 % jnp.zeros(5, np.int32), [0, 0, 0, 0, 0]),
    ("i32_mod0_scalar", lambda: jnp.asarray(I32) % 0, [0, 0, 0, 0, 0]),
    ("i32_mod0_jit", lambda: astjax.jit(lambda a, b: a % b)(I32, np.zeros(5, np.int32)),
     [0, 0, 0, 0, 0]),
    ("i32_fmod0", lambda: jnp.fmod(I32, np.zeros(5, np.int32)), [0, 0, 0, 0, 0]),
    ("i32_floordiv0", lambda: jnp.asarray(I32) // np.zeros(5, np.int32), [-2, -2, -1, -2, -2]),
    ("i32_floordiv0_jit", lambda: astjax.jit(lambda a, b: a // b)(I32, np.zeros(5, np.int32)),
     [-2, -2, -1, -2, -2]),
    ("i32_divmod0", lambda: jnp.divmod(I32, np.zeros(5, np.int32)),
     ([-2, -2, -1, -2, -2], [0, 0, 0, 0, 0])),
    ("i32_lax_rem0", lambda: lax.rem(I32, np.zeros(5, np.int32)), [-3, -1, 0, 1, 3]),
    ("i32_lax_div0", lambda: lax.div(I32, np.zeros(5, np.int32)), [-1, -1, -1, -1, -1]),
    ("i32_pow_staged_m1", lambda: astjax.jit(lambda a, b: a ** b)(I32, np.int32(-1)),
     [-2111105451, -1, 0, 1, 2111105451]),
    ("i32_pow_staged_m2", lambda: astjax.jit(lambda a, b: a ** b)(I32, np.int32(-2)),
     [703701817, 1, 0, 1, 703701817]),
    ("i32_pow_staged_3", lambda: astjax.jit(lambda a, b: a ** b)(I32, np.int32(3)),
     [-27, -1, 0, 1, 27]),
    ("u32_mod0", lambda: jnp.asarray(U32) % np.zeros(4, np.uint32), [0, 0, 0, 0]),
    ("u32_fmod0", lambda: jnp.fmod(U32, np.zeros(4, np.uint32)), [0, 0, 0, 0]),
    ("u32_floordiv0", lambda: jnp.asarray(U32) // np.zeros(4, np.uint32), [_UMAX] * 4),
    ("u32_pow_staged_m1", lambda: astjax.jit(lambda a, b: a ** b)(U32, np.uint32(_UMAX)),
     [0, 1, 0, 1075496887]),
    ("f32_mod0", lambda: jnp.array([1., -1., 0.]) % 0., [np.nan] * 3),
    ("f32_floordiv0", lambda: jnp.array([1., -1., 0.]) // 0., [np.inf, -np.inf, np.nan]),
    ("solve_zeros", lambda: jnp.linalg.solve(jnp.zeros((2, 2)), jnp.ones(2)), [np.nan, np.inf]),
    ("solve_zeros_neg", lambda: jnp.linalg.solve(jnp.zeros((2, 2)), jnp.array([1., -2.])),
     [np.nan, -np.inf]),
    ("solve_zeros_jit", lambda: astjax.jit(jnp.linalg.solve)(jnp.zeros((2, 2)), jnp.ones(2)),
     [np.nan, np.inf]),
    ("solve_singular", lambda: jnp.linalg.solve(jnp.array([[1., 2.], [2., 4.]]), jnp.ones(2)),
     [-np.inf, np.inf]),
    ("solve_zeros_matrix", lambda: jnp.linalg.solve(jnp.zeros((2, 2)), jnp.ones((2, 2))),
     [[np.nan, np.nan], [np.inf, np.inf]]),
    ("inv_zeros", lambda: jnp.linalg.inv(jnp.zeros((2, 2))), [[np.nan, np.nan], [np.nan, np.inf]]),
]


@pytest.mark.parametrize("name,thunk,want", INTEGER, ids=[c[0] for c in INTEGER])
def test_division_by_zero_and_powers_match_jax(name, thunk, want):
    got = thunk()
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        g = np.asarray(g)
        w = np.asarray(w, g.dtype) if g.dtype.kind in "iu" else np.asarray(w, np.float64)
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
@pytest.mark.parametrize("call", [
    lambda x: x ** -1,
    lambda x: jnp.power(x, -2),
    lambda x: x ** jnp.asarray(-1),
    lambda x: lax.integer_pow(x, -1),
    lambda x: astjax.jit(lambda a: lax.integer_pow(a, -2))(x),
])
def test_integer_negative_power_raises_like_jax(dtype, call):
    """JAX: TypeError "Integers cannot be raised to negative powers"."""
    x = jnp.asarray(np.array([0, 1, 2], dtype))
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers") as e:
        call(x)
    assert isinstance(e.value, astjax.AstjaxError) and e.value.hint

# ---------------------------------------------------- fori_loop's bounds (R12, JAX's rules)


def _fori_sum(lo, hi):
    return lax.fori_loop(lo, hi, lambda i, c: c + i, 0.0)


FORI = [
    # bounds known now: int(lo)..int(hi) with an int32 index
    ("python_floats", lambda: _fori_sum(0.0, 3.5), 3.0),
    ("python_floats_jit", lambda: astjax.jit(lambda c: c + _fori_sum(0.0, 3.5))(0.0), 3.0),
    ("array_floats", lambda: _fori_sum(jnp.float32(0.0), jnp.float32(3.5)), 3.0),
    ("empty", lambda: lax.fori_loop(3, 1, lambda i, c: c + i, 5.0), 5.0),
    # staged bounds: a while loop counting in the bounds' dtype
    ("staged_floats", lambda: astjax.jit(_fori_sum)(0.0, 3.5), 6.0),
    ("staged_upper", lambda: astjax.jit(lambda hi: _fori_sum(0.0, hi))(3.5), 6.0),
    ("staged_f32", lambda: astjax.jit(lambda hi: _fori_sum(jnp.float32(0.5), hi))(
        jnp.float32(3.0)), 4.5),
    ("weak_int_with_int16", lambda: astjax.jit(lambda hi: _fori_sum(0, hi))(jnp.int16(3)), 3.0),
    ("grad_float_bounds", lambda: astjax.grad(
        lambda c: lax.fori_loop(0.0, 3.5, lambda i, c: c * i + c, c))(1.0), 6.0),
]


@pytest.mark.parametrize("name,thunk,want", FORI, ids=[c[0] for c in FORI])
def test_fori_loop_bounds_follow_jax(name, thunk, want):
    assert float(thunk()) == want


@pytest.mark.parametrize("lo,hi", [(0, 3.5), (jnp.int32(0), jnp.int16(3))])
def test_fori_loop_bounds_of_two_dtypes_raise_like_jax(lo, hi):
    with pytest.raises(TypeError, match="one dtype") as e:
        _fori_sum(lo, hi)
    assert isinstance(e.value, astjax.AstjaxError) and e.value.hint

# ------------------------------------------------------- digamma's derivative: polygamma

_PG_X = np.array([0.3, 1.5, 4.0, 12.5, -0.5, -2.3])
# recorded from jax 0.10.2 (x64): lax.polygamma(m, x) for m = 1, 2, 3
_PG = {1: [12.245364546107734, 0.9348022005446794, 0.2838229557371153, 0.08328522460157838,
           8.934802200544677, 14.72591216096129],
       2: [-75.27253658872594, -0.828796644234319, -0.0800397322451144,
           -0.006932436585788232, -0.828796644234319, 68.7137925292702],
       3: [743.1417646550502, 1.4090910340024378, 0.044865328192755106,
           0.001153412804913406, 193.40909103400256, 768.9350646661427]}


@pytest.mark.parametrize("m", [1, 2, 3])
def test_polygamma_matches_jax_and_the_reference(m):
    from astjax.primitives.elementwise import polygamma_p
    old = astjax.config.read("jax_enable_x64")
    astjax.config.update("jax_enable_x64", True)
    try:
        got = lax.polygamma(float(m), jnp.asarray(_PG_X))
        np.testing.assert_allclose(np.asarray(got), _PG[m], rtol=1e-13)
        ref = polygamma_p.impl(np.full(6, float(m)), _PG_X)  # the NumPy reference
        np.testing.assert_allclose(ref, _PG[m], rtol=1e-12)
        # d/dx digamma = polygamma(1, .); d/dx polygamma(m, .) = polygamma(m + 1, .)
        g = astjax.vmap(astjax.grad(lambda x: lax.polygamma(float(m - 1), x)))(_PG_X)
        np.testing.assert_allclose(np.asarray(g), _PG[m], rtol=1e-13)
    finally:
        astjax.config.update("jax_enable_x64", old)


def test_polygamma_derivative_in_m_raises():
    with pytest.raises(astjax.errors.DifferentiationError, match="with respect to m"):
        astjax.grad(lambda m: lax.polygamma(m, 1.5))(2.0)

# ------------------------------------------------- empty arrays, pow at 0 (R16, vs JAX)


def test_empty_arrays_through_transforms():
    """Zero-size operands: an empty batch through a batched cond, the derivative of an
    empty product (the constant 1) and of sorting nothing. JAX: empty results."""
    e = jnp.zeros((0, 3))
    out = astjax.vmap(lambda x: lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x))(e)
    assert np.asarray(out).shape == (0, 3)
    g = astjax.grad(lambda x: jnp.prod(x))(jnp.zeros(0))
    assert np.asarray(g).shape == (0,)
    g = astjax.grad(lambda x: jnp.sort(x).sum())(jnp.zeros(0))
    assert np.asarray(g).shape == (0,)
    g = astjax.grad(lambda x: jnp.prod(x, axis=1).sum())(jnp.zeros((2, 0)))
    assert np.asarray(g).shape == (2, 0)


@pytest.mark.parametrize("x,y,want", [
    # recorded from jax 0.10.2: d/dx, d/dy of x ** y (float y)
    (0.0, 0.0, (np.nan, 0.0)), (2.0, 0.0, (0.0, 0.6931471824645996)), (0.0, 1.0, (1.0, 0.0)),
    (0.0, 2.0, (0.0, 0.0)), (0.0, 0.5, (np.inf, 0.0)), (0.0, -1.0, (-np.inf, np.nan)),
    (-2.0, 3.0, (12.0, np.nan)), (3.0, -2.0, (-0.07407407462596893, 0.12206803262233734)),
])
def test_pow_derivatives_at_special_points_follow_jax(x, y, want):
    got = astjax.grad(lambda x, y: x ** y, argnums=(0, 1))(x, y)
    np.testing.assert_allclose([float(v) for v in got], want, rtol=1e-6)

# ------------------------------------------- kinks: relu, relu6, softplus/logaddexp ties

_KINKS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.0, 6.0, 7.0, 5.5], np.float32)


@pytest.mark.parametrize("fn,want", [
    # recorded from jax 0.10.2: vmap(grad(fn)) over _KINKS
    (lambda x: astjax.nn.relu(x), [0, 1, 0, 0, 0, 1, 0, 1, 1, 1]),
    (lambda x: astjax.nn.relu6(x), [0, 0, 0, 0, 0, 1, 0, 0, 0, 1]),
    (lambda x: astjax.nn.softplus(x),
     [np.nan, 1, 0, 0.5, 0.5, 0.7310585379600525, 0.11920291185379028, 0.9975273013114929,
      0.9990891814231873, 0.9959298968315125]),
])
def test_derivatives_at_kinks_follow_jax(fn, want):
    """abs, max and min have JAX's one-sided conventions at 0 and at ties, so formulas
    built on them must put their kinks where JAX's do."""
    got = np.asarray(astjax.vmap(astjax.grad(fn))(_KINKS))
    np.testing.assert_allclose(got, np.asarray(want, np.float64), rtol=1e-6)


def test_logaddexp_derivative_at_ties_is_one_half_each():
    """JAX: d/dx logaddexp(x, x) = 1 for finite x (1/2 from each operand). (At +inf JAX's
    custom rule gives 2 and astjax NaN: not covered here.)"""
    x = np.array([0.0, -0.0, 1.0, -2.0, 6.0], np.float32)
    got = astjax.vmap(astjax.grad(lambda x: jnp.logaddexp(x, 1.0 * x)))(x)
    np.testing.assert_allclose(np.asarray(got), np.ones(5), rtol=1e-6)
    gx, gy = astjax.grad(jnp.logaddexp, argnums=(0, 1))(0.0, 0.0)
    assert (float(gx), float(gy)) == (0.5, 0.5)

# ------------------------------------------------- cummax/cummin's derivative at ties


_W = np.arange(1.0, 8.0, dtype=np.float32)


@pytest.mark.parametrize("x,want", [
    # recorded from jax 0.10.2: grad of sum(cummax(x) * w), sum(cummin(x, reverse) * w),
    # sum(cummax(x, reverse) * w), with w = 1, 2, 3, ...
    ([1., 1.], ([2.0, 1.0], [0.5, 2.5], [0.5, 2.5])),
    ([1., 1., 1.], ([2.75, 1.75, 1.5], [0.5, 1.25, 4.25], [0.5, 1.25, 4.25])),
    ([2., 1., 2., 3., 3.], ([4.5, 0.0, 1.5, 6.5, 2.5], [0.0, 3.0, 3.0, 2.0, 7.0],
                            [0.0, 0.0, 0.0, 5.0, 10.0])),
    ([1., np.nan, 2.], ([1.0, 0.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 3.0])),
])
def test_cummax_cummin_derivatives_follow_jax(x, want):
    """JAX differentiates an associative scan of max/min: ties share in its proportions,
    and a NaN stops the derivative."""
    x = np.asarray(x, np.float32)
    w = _W[:len(x)]
    fns = [lambda x: jnp.sum(lax.cummax(x, 0) * w),
           lambda x: jnp.sum(lax.cummin(x, 0, reverse=True) * w),
           lambda x: jnp.sum(lax.cummax(x, 0, reverse=True) * w)]
    for f, wv in zip(fns, want):
        np.testing.assert_allclose(np.asarray(astjax.grad(f)(x)), wv, rtol=1e-6)
