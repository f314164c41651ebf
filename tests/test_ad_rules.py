"""Every primitive's JVP and VJP against float64 central finite differences, up to
order 2, forward and reverse (table-driven), and the registry completeness check."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core, lax
from astjax.transforms import ad
from astjax.primitives import arithmetic, gather as ix
from astjax.primitives import scatter as sx
from astjax.primitives import linalg as la

rng = np.random.RandomState(0)


@pytest.fixture(autouse=True)
def x64():
    old = astjax.config.read("jax_enable_x64")
    astjax.config.update("jax_enable_x64", True)
    yield
    astjax.config.update("jax_enable_x64", old)


def pos(*shape):
    return lambda: rng.uniform(0.5, 2.0, shape)


def unit(*shape):
    return lambda: rng.uniform(-0.8, 0.8, shape)


def _line_sharding():
    """A 2-device mesh's split along its one axis `d`."""
    mesh = astjax.sharding.Mesh(np.array(astjax.devices()[:2]), ("d",))
    return astjax.sharding.NamedSharding(mesh, astjax.P("d"))


def anyv(*shape):
    return lambda: rng.randn(*shape)


def spd(n):
    def make():
        a = rng.randn(n, n)
        return a @ a.T + n * np.eye(n)
    return make


def tril(n):
    def make():
        return np.tril(rng.randn(n, n)) + 3 * np.eye(n)
    return make


_G_DN = ix.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
_S_DN = sx.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
_IDX = np.array([[2], [0], [3]], np.int32)
_UIDX = np.array([[2], [0], [3]], np.int32)

@astjax.custom_jvp
def _softplus(x):
    return jnp.log1p(jnp.exp(x))


@_softplus.defjvp
def _softplus_jvp(primals, tangents):
    x, = primals
    return _softplus(x), tangents[0] / (1 + jnp.exp(-x))


@astjax.custom_vjp
def _cube(x):
    return x ** 3


def _cube_fwd(x):
    return x ** 3, x


def _cube_bwd(x, ct):
    return (3 * x ** 2 * ct,)


_cube.defvjp(_cube_fwd, _cube_bwd)


def _complex_parts(x, y):
    """complex, conj, real, imag (and complex mul/abs) between real inputs and output."""
    z = lax.complex(x, y)
    w = z * lax.conj(z + 1j) * (0.5 - 2j)
    return lax.real(w) * lax.imag(w) + jnp.abs(w)


def _while3(x):
    return lax.while_loop(lambda s: s[0] < 3,
                          lambda s: (s[0] + 1, jnp.sin(s[1]) * 1.3 + s[1]), (0, x))[1]


CASES = [
    ("neg", lax.neg, [anyv(3)]),
    ("floor", lambda x: lax.floor(x) * x, [anyv(3)]),
    ("ceil", lambda x: lax.ceil(x) * x, [anyv(3)]),
    ("round", lambda x: lax.round(x) * x, [anyv(3)]),
    ("sign", lambda x: lax.sign(x) * x, [anyv(3)]),
    ("abs", lax.abs, [pos(3)]),
    ("exp", lax.exp, [anyv(3)]),
    ("square", lax.square, [anyv(3)]),
    # accuracy= (lax.AccuracyMode.HIGHEST changes the derivative rules of these three)
    ("tanh_highest", lambda x: lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST), [anyv(3)]),
    ("expm1_highest", lambda x: lax.expm1(x, accuracy=lax.AccuracyMode.HIGHEST), [anyv(3)]),
    ("logistic_highest", lambda x: lax.logistic(x, accuracy=lax.AccuracyMode.HIGHEST),
     [anyv(3)]),
    ("sin_tolerance", lambda x: lax.sin(x, accuracy=lax.Tolerance(ulps=1)), [anyv(3)]),
    ("exp2", lax.exp2, [anyv(3)]),
    ("log", lax.log, [pos(3)]),
    ("log1p", lax.log1p, [pos(3)]),
    ("expm1", lax.expm1, [anyv(3)]),
    ("sqrt", lax.sqrt, [pos(3)]),
    ("rsqrt", lax.rsqrt, [pos(3)]),
    ("cbrt", lax.cbrt, [pos(3)]),
    ("sin", lax.sin, [anyv(3)]),
    ("cos", lax.cos, [anyv(3)]),
    ("tan", lax.tan, [unit(3)]),
    ("asin", lax.asin, [unit(3)]),
    ("acos", lax.acos, [unit(3)]),
    ("atan", lax.atan, [anyv(3)]),
    ("sinh", lax.sinh, [anyv(3)]),
    ("cosh", lax.cosh, [anyv(3)]),
    ("tanh", lax.tanh, [anyv(3)]),
    ("asinh", lax.asinh, [anyv(3)]),
    ("acosh", lax.acosh, [lambda: rng.uniform(1.5, 3, (3,))]),
    ("atanh", lax.atanh, [unit(3)]),
    ("logistic", lax.logistic, [anyv(3)]),
    ("erf", lax.erf, [anyv(3)]),
    ("erfc", lax.erfc, [anyv(3)]),
    ("erf_inv", lax.erf_inv, [unit(3)]),
    ("lgamma", lax.lgamma, [pos(3)]),
    ("digamma", lax.digamma, [pos(3)]),
    ("polygamma", lambda x: lax.polygamma(2.0, x), [pos(3)]),
    ("bessel_i0e", lax.bessel_i0e, [anyv(3)]),
    ("bessel_i1e", lax.bessel_i1e, [anyv(3)]),
    ("zeta_q", lambda q: lax.zeta(3.0, q), [pos(3)]),
    ("integer_pow3", lambda x: lax.integer_pow(x, 3), [anyv(3)]),
    ("integer_pow-2", lambda x: lax.integer_pow(x, -2), [pos(3)]),
    ("add", lax.add, [anyv(3), anyv(3)]),
    ("add_bcast", lambda x, y: lax.add(x, y), [anyv(), anyv(3)]),
    ("sub", lax.sub, [anyv(3), anyv(3)]),
    ("mul", lax.mul, [anyv(3), anyv(3)]),
    ("mul_bcast", lambda x, y: lax.mul(x, y), [anyv(3), anyv()]),
    ("div", lax.div, [anyv(3), pos(3)]),
    ("pow", lax.pow, [pos(3), anyv(3)]),
    ("max", lax.max, [anyv(3), anyv(3)]),
    ("min", lax.min, [anyv(3), anyv(3)]),
    ("atan2", lax.atan2, [anyv(3), anyv(3)]),
    ("rem", lax.rem, [lambda: rng.uniform(2, 3, (3,)), lambda: rng.uniform(0.6, 0.9, (3,))]),
    ("add_any", arithmetic.add_any, [anyv(3), anyv(3)]),
    ("convert", lambda x: lax.convert_element_type(x, np.float32), [anyv(3)]),
    ("copy", lambda x: lax.copy_p(x), [anyv(3)]),
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1,)), [anyv(3)]),
    ("broadcast_keep1", lambda x: lax.broadcast_in_dim(x, (2, 3), (0, 1)), [anyv(1, 3)]),
    ("reshape", lambda x: lax.reshape(x, (3, 2)), [anyv(2, 3)]),
    ("transpose", lambda x: lax.transpose(x, (1, 0)), [anyv(2, 3)]),
    ("squeeze", lambda x: lax.squeeze(x, (0,)), [anyv(1, 3)]),
    ("expand_dims", lambda x: lax.expand_dims(x, (1,)), [anyv(3)]),
    ("rev", lambda x: lax.rev(x, (0,)), [anyv(3)]),
    ("concatenate", lambda x, y: lax.concatenate([x, y], 0), [anyv(2), anyv(3)]),
    ("pad", lambda x, p: lax.pad(x, p, ((1, 2, 1),)), [anyv(3), anyv()]),
    ("pad_neg", lambda x: lax.pad(x, 0.0, ((-1, 1, 0),)), [anyv(4)]),
    ("slice", lambda x: lax.slice(x, (1,), (6,), (2,)), [anyv(7)]),
    ("dynamic_slice", lambda x: lax.dynamic_slice(x, (np.int32(1),), (2,)), [anyv(4)]),
    ("dynamic_update_slice", lambda x, u: lax.dynamic_update_slice(x, u, (np.int32(1),)), [anyv(4), anyv(2)]),
    ("select_n", lambda x, y: lax.select(x > 0, x, y), [anyv(3), anyv(3)]),
    ("clamp", lambda x: lax.clamp(-0.5, x, 0.5), [anyv(5)]),
    ("reduce_sum", lambda x: lax.reduce_sum(x, (1,)), [anyv(2, 3)]),
    ("reduce_max", lambda x: lax.reduce_max(x, (0,)), [anyv(3, 2)]),
    ("reduce_min", lambda x: lax.reduce_min(x, (1,)), [anyv(2, 3)]),
    ("reduce_prod", lambda x: lax.reduce_prod(x, (0, 1)), [anyv(2, 3)]),
    ("dot_general", lambda x, y: lax.dot(x, y), [anyv(2, 3), anyv(3, 4)]),
    ("dot_algorithm", lambda x, y: lax.dot(x, y, precision="F64_F64_F64"),
     [anyv(2, 3), anyv(3, 4)]),
    ("split", lambda x: lax.split(x, (1, 3), axis=1)[1], [anyv(2, 4)]),
    ("stack", lambda x, y: lax.stack([x, y], axis=1), [anyv(3), anyv(3)]),
    ("unstack", lambda x: lax.unstack(x, axis=1)[2], [anyv(2, 3)]),
    ("tile", lambda x: lax.tile(x, (2, 3)), [anyv(2, 2)]),
    ("top_k", lambda x: lax.top_k(x, 2, axis=0)[0], [anyv(3, 4)]),
    ("approx_top_k", lambda x: lax.approx_min_k(x, 2)[0], [anyv(3, 4)]),
    ("dot_batch", lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), [anyv(2, 3, 4), anyv(2, 4, 2)]),
    ("cumsum", lambda x: lax.cumsum(x, 0), [anyv(4)]),
    ("cumsum_rev", lambda x: lax.cumsum(x, 1, reverse=True), [anyv(2, 4)]),
    ("cumprod", lambda x: lax.cumprod(x, 0), [anyv(4)]),
    ("cummax", lambda x: lax.cummax(x, 0), [anyv(5)]),
    ("cummin", lambda x: lax.cummin(x, 0, reverse=True), [anyv(5)]),
    ("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 0), [anyv(4)]),
    ("optimization_barrier", lambda x, y: lax.optimization_barrier((x * y, y))[0] * y,
     [anyv(3), anyv(3)]),
    # float64's own format: the rounding is the identity, so finite differences apply
    ("reduce_precision", lambda x: lax.reduce_precision(x * x, 11, 52), [anyv(4)]),
    ("dce_sink", lambda x: (lax.dce_sink(x * x), x * 3.0)[1], [anyv(3)]),
    ("name", lambda x: astjax.ad_checkpoint.checkpoint_name(x * x, "sq") * x, [anyv(3)]),
    ("sort", lambda x: lax.sort(x), [anyv(5)]),
    ("gather", lambda x: lax.gather(x, _IDX, _G_DN, (1, 2), mode="clip"), [anyv(4, 2)]),
    ("scatter_add", lambda x, u: lax.scatter_add(x, _IDX, u, _S_DN), [anyv(4, 2), anyv(3, 2)]),
    ("scatter_sub", lambda x, u: lax.scatter_sub(x, _IDX, u, _S_DN), [anyv(4, 2), anyv(3, 2)]),
    ("scatter", lambda x, u: lax.scatter(x, _UIDX, u, _S_DN, unique_indices=True), [anyv(4, 2), anyv(3, 2)]),
    ("scatter_mul", lambda x, u: lax.scatter_mul(x, _UIDX, u, _S_DN, unique_indices=True), [anyv(4, 2), anyv(3, 2)]),
    ("scatter_max", lambda x, u: lax.scatter_max(x, _UIDX, u, _S_DN), [anyv(4, 2), anyv(3, 2)]),
    ("scatter_min", lambda x, u: lax.scatter_min(x, _UIDX, u, _S_DN), [anyv(4, 2), anyv(3, 2)]),
    ("cholesky", lambda a: jnp.linalg.cholesky(a), [spd(3)]),
    ("triangular_solve", lambda a, b: core.bind(la.triangular_solve_p, a, b, left_side=True, lower=True, transpose_a=False, conjugate_a=False, unit_diagonal=False), [tril(3), anyv(3, 2)]),
    ("tridiagonal_solve", lambda dl, d, du, b: lax.linalg.tridiagonal_solve(
        dl, d + 4., du, b), [anyv(4), anyv(4), anyv(4), anyv(4, 2)]),
    ("cond", lambda x: lax.cond(x[0] > 0, jnp.sin, jnp.cos, x), [anyv(3)]),
    ("scan", lambda x: lax.scan(lambda c, y: (c * y, c), 1.0, x)[1], [anyv(4)]),
    ("while", _while3, [anyv(3)]),
    ("complex_parts", _complex_parts, [anyv(3), anyv(3)]),
    ("checkpoint", lambda x: astjax.checkpoint(lambda x: jnp.sin(x) * x)(x), [anyv(3)]),
    ("custom_jvp_call", _softplus, [anyv(3)]),
    # partitioned programs over 2 devices (tests/test_sharded_jit.py, test_shard_map.py)
    ("sharding_constraint", lambda x: lax.with_sharding_constraint(
        jnp.sin(x) * x, _line_sharding()), [anyv(4)]),
    ("shard_map", lambda x: astjax.shard_map(
        lambda v: lax.psum(jnp.sin(v), "d") * v, mesh=_line_sharding().mesh,
        in_specs=astjax.P("d"), out_specs=astjax.P("d"))(x), [anyv(4)]),
]

# Collectives, by primitive name: differentiated inside a vmap with an axis name (outside
# it, batching removes them first); see test_collective_grads_fd.
COLLECTIVES = {
    "psum": lambda r: lax.psum(r, "i"),
    "pmax": lambda r: lax.pmax(r, "i"),
    "pmin": lambda r: lax.pmin(r, "i"),
    "all_gather": lambda r: lax.all_gather(r, "i"),
    "ppermute": lambda r: lax.ppermute(r, "i", [(0, 1), (1, 2), (2, 0)]),
    "all_to_all": lambda r: lax.all_to_all(r, "i", 0, 0),
    "reduce_scatter": lambda r: lax.psum_scatter(r, "i"),
    "pvary": lambda r: lax.pcast(r, "i", to="varying") * r,
    "pbroadcast": lambda r: lax.pbroadcast(r, "i", 1) * r,
}


def _f64(x):
    return np.asarray(x, np.float64)


def _call(fn, xs):
    return np.asarray(astjax.jit(fn)(*xs), np.float64)


def _fd_jvp(fn, xs, vs, eps=1e-6):
    plus = [x + eps * v for x, v in zip(xs, vs)]
    minus = [x - eps * v for x, v in zip(xs, vs)]
    return (_call(fn, plus) - _call(fn, minus)) / (2 * eps)


def _case_ids():
    return [c[0] for c in CASES]


@pytest.mark.parametrize("name,fn,gens", CASES, ids=_case_ids())
def test_jvp_vjp_fd(name, fn, gens):
    xs = [_f64(g()) for g in gens]
    vs = [_f64(rng.randn(*x.shape)) for x in xs]
    _, t = astjax.jvp(fn, tuple(xs), tuple(vs))
    tol = 1e-2 if name == "convert" else 1e-5
    fd = _fd_jvp(fn, xs, vs, eps=0.1 if name == "convert" else 1e-6)
    np.testing.assert_allclose(np.asarray(t), fd, rtol=tol, atol=tol / 10)
    out, f_vjp = astjax.vjp(fn, *xs)
    ct = _f64(rng.randn(*np.shape(out)))
    cts = f_vjp(ct)
    lhs = sum(float(np.sum(np.asarray(c) * v)) for c, v in zip(cts, vs))
    rhs = float(np.sum(ct * np.asarray(t)))
    np.testing.assert_allclose(lhs, rhs, rtol=tol / 10, atol=1e-8)


SECOND = {"sin", "exp", "log", "tanh", "mul", "div", "pow", "logistic", "dot_general",
          "integer_pow3", "sqrt", "atan2", "reduce_prod", "cumprod", "cumlogsumexp", "sort",
          "gather", "scatter_add", "select_n", "erf", "cond", "scan", "cholesky", "while",
          "complex_parts", "custom_jvp_call"}


@pytest.mark.parametrize("name,fn,gens", [c for c in CASES if c[0] in SECOND],
                         ids=[c[0] for c in CASES if c[0] in SECOND])
def test_second_order(name, fn, gens):
    """Forward-over-reverse and reverse-over-reverse against FD of the first order."""
    xs = [_f64(g()) for g in gens]
    vs = [_f64(rng.randn(*x.shape)) for x in xs]
    out = _call(fn, xs)
    ct = _f64(rng.randn(*out.shape))

    def g(*a):
        return astjax.vjp(fn, *a)[1](ct)

    def gdot(*a):
        cts = g(*a)
        return sum(jnp.sum(c * v) for c, v in zip(cts, vs))

    # d/de <ct, J(x + e w)^T ...>: compare grad of gdot with FD of gdot
    hv = astjax.grad(gdot, argnums=tuple(range(len(xs))))(*xs)
    w = [_f64(rng.randn(*x.shape)) for x in xs]
    fd = (_call(gdot, [x + 1e-5 * v for x, v in zip(xs, w)])
          - _call(gdot, [x - 1e-5 * v for x, v in zip(xs, w)])) / 2e-5
    got = sum(float(np.sum(np.asarray(h) * v)) for h, v in zip(hv, w))
    np.testing.assert_allclose(got, fd, rtol=1e-4, atol=1e-6)
    # forward over reverse
    _, t = astjax.jvp(gdot, tuple(xs), tuple(w))
    np.testing.assert_allclose(float(t), fd, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", sorted(COLLECTIVES))
def test_collective_grads_fd(name):
    """vmap(grad(g), axis_name) with a collective in g: JAX's meaning is the gradient of
    the sum over the mapped axis of g (a collective's transpose gathers the cotangents
    of every example), checked against central differences of that sum."""
    c = COLLECTIVES[name]

    def g(r):
        return jnp.sum(jnp.sin(c(r)) * r)

    x = _f64(rng.randn(3, 3))
    got = np.asarray(astjax.vmap(astjax.grad(g), axis_name="i")(x))
    total = astjax.jit(lambda x: jnp.sum(astjax.vmap(g, axis_name="i")(x)))
    fd = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = 1e-6
        fd[idx] = (float(total(x + e)) - float(total(x - e))) / 2e-6
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def test_custom_vjp_call_vjp_fd():
    """custom_vjp_call (and custom_lin, transposed by the user's bwd): reverse mode
    only, as in JAX; the VJP against central differences."""
    x = _f64(rng.randn(3))
    v, ct = _f64(rng.randn(3)), _f64(rng.randn(3))
    (cx,) = astjax.vjp(_cube, x)[1](ct)
    fd = _fd_jvp(_cube, [x], [v])
    np.testing.assert_allclose(float(np.sum(np.asarray(cx) * v)), float(np.sum(ct * fd)),
                               rtol=1e-6)


def test_stop_gradient_jvp_and_vjp_are_zero():
    """d/dx [x * stop_gradient(x)] = stop_gradient(x) (FD would see 2x: not a table case)."""
    x = _f64(rng.randn(3))
    f = lambda x: x * lax.stop_gradient(x)  # noqa: E731
    _, t = astjax.jvp(f, (x,), (np.ones(3),))
    np.testing.assert_array_equal(np.asarray(t), x)
    (cx,) = astjax.vjp(f, x)[1](np.ones(3))
    np.testing.assert_array_equal(np.asarray(cx), x)


_EXT_DN = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
_EXT_IDX = np.array([[1], [3], [1], [1], [0]])


@pytest.mark.parametrize("name, nan, want", [
    # element 1: the operand and two updates tie; 3: an update ties the operand;
    # 0: one update (max: the operand wins; min: the update); 2: untouched
    ("max", False, [1.0, 3.367, 100.0, 500.005]),
    ("min", False, [1e-05, 1e-04, 100.0, 500.005]),
    # a NaN update at element 1 (no winner: 0) and a NaN operand nobody reaches (2)
    ("max", True, [1.0, 0.0, 100.0, 500.005]),
    ("min", True, [1e-05, 0.0, 100.0, 500.005])])
def test_scatter_extremal_jvp_ties_duplicates_nan(name, nan, want):
    """scatter-max/min's JVP shares an element's tangent among all its winners, as
    JAX's rule does (values from JAX 0.10.2; JAX's 0 at the NaN is 8.9e-16)."""
    f = {"max": lax.scatter_max, "min": lax.scatter_min}[name]
    x = np.array([1.0, 2.0, np.nan if nan else 5.0, 4.0])
    u = np.array([np.nan if nan else 2.0, 4.0, 2.0, 0.5, -1.0])
    tx, tu = np.array([1.0, 10.0, 100.0, 1000.0]), np.array([0.1, 0.01, 0.001, 1e-4, 1e-5])
    _, t = astjax.jvp(lambda x, u: f(x, _EXT_IDX, u, _EXT_DN), (x, u), (tx, tu))
    np.testing.assert_allclose(np.asarray(t), want, rtol=1e-12, atol=1e-14)
    _, tj = astjax.jit(lambda x, u, tx, tu: astjax.jvp(
        lambda x, u: f(x, _EXT_IDX, u, _EXT_DN), (x, u), (tx, tu)))(x, u, tx, tu)
    np.testing.assert_allclose(np.asarray(tj), want, rtol=1e-12, atol=1e-14)
    if not nan:
        w = {"max": ([1.0, 2 / 3, 3.0, 2.0], [2 / 3, 2.0, 2 / 3, 0.0, 0.0]),
             "min": ([0.0, 0.0, 3.0, 2.0], [0.0, 2.0, 0.0, 2.0, 1.0])}[name]
        g = astjax.grad(lambda x, u: jnp.sum(f(x, _EXT_IDX, u, _EXT_DN) * jnp.arange(1., 5.)),
                        argnums=(0, 1))(x, u)
        for got, ref in zip(g, w):
            np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-12, atol=1e-14)


def test_table_covers_every_differentiable_primitive():
    """Each primitive with a derivative rule appears in a table case (or a test above)."""
    import astjax.transforms.ad  # noqa: F401
    used = set()

    def walk(j):
        for e in j.eqns:
            used.add(e.primitive.name)
            for v in e.params.values():
                for sub in (v if isinstance(v, (list, tuple)) else [v]):
                    if isinstance(sub, core.ClosedJaxpr):
                        walk(sub.jaxpr)
                    elif isinstance(sub, core.Jaxpr):
                        walk(sub)
    for name, fn, gens in CASES:
        walk(astjax.make_jaxpr(fn)(*[_f64(g()) for g in gens]).jaxpr)
    elsewhere = {"custom_vjp_call", "custom_lin", "stop_gradient"} | set(COLLECTIVES)
    # host callbacks: no derivative (pure/io) or primal values only (debug), as in JAX;
    # tests/test_callbacks.py, tests/test_debug_print.py
    elsewhere |= {"pure_callback", "io_callback", "debug_callback", "debug_print"}
    # against float64 finite differences (2nd order) in tests/test_convolution.py and
    # tests/test_windowed.py
    elsewhere |= {"conv_general_dilated", "reduce_window_sum", "reduce_window_max",
                  "reduce_window_min", "select_and_gather_add", "select_and_scatter_add"}
    # JVP vs stored JAX values and float64 finite differences (forward mode: reverse is
    # JAX's ValueError); select_and_scatter has no derivative (JAX's NotImplementedError):
    # tests/test_lax_rest.py
    elsewhere |= {"reduce_window", "select_and_scatter", "device_put"}
    # float64 finite differences in tests/test_fft.py and tests/test_linalg_lapack.py
    elsewhere |= {"fft", "lu", "qr", "eigh", "svd", "eig", "igamma", "igammac", "betainc"}
    # stored JAX derivatives and float64 finite differences in tests/test_custom_solves.py
    elsewhere |= {"custom_linear_solve"}
    # no derivative (JAX's error for jvp and grad): tests/test_ffi.py
    elsewhere |= {"ffi_call"}
    # differentiated as the function it wraps (JAX raises): jvp under vmap in
    # tests/test_top_names.py::test_custom_vmap
    elsewhere |= {"custom_vmap_call"}
    # JAX's implicit reparameterization, not the pathwise derivative at a fixed key that
    # finite differences measure: tests/test_gamma_grad.py checks that a sample moved by
    # it stays at its CDF quantile (float64) and its values against JAX's
    elsewhere |= {"random_gamma"}
    # JVP vs the exchange of the tangents and <ct, Jv> == <J^T ct, v> under vmap in
    # tests/test_collectives_p2p.py; psend / precv have no derivative, as in JAX
    elsewhere |= {"ragged_all_to_all", "psend", "precv"}
    # gradients through the shard_map boundary vs JAX's stored values (over a vmap axis
    # it is JAX's ValueError): tests/test_all_gather_to.py
    elsewhere |= {"all_gather_invariant"}
    # lax.psum inside a check_vma body, gradients vs JAX's stored values: tests/test_vma_reverse.py
    elsewhere |= {"psum_invariant"}
    # a Reduced result (all_gather(to='reduced')), linear as all_gather: tests/test_vma_reverse.py
    elsewhere |= {"all_gather_reduced"}
    # its typed transpose inside a body (unreduced cotangents): tests/test_vma_reduce_scatter.py
    elsewhere |= {"unreduced_reduce_scatter"}
    # a user extended dtype's boundary (float32 data only): gradients through it, its
    # cotangents combined by the dtype's rule, vs JAX's stored values in
    # tests/test_extended_dtypes.py
    elsewhere |= {"to_edtype", "from_edtype"}

    # no derivative (JAX's ValueError): tests/test_lax_more.py
    elsewhere |= {"composite"}
    # linear in its linear operands, transposed by the user's function: tests/test_linear_call.py
    elsewhere |= {"linear_call"}
    # custom_vjp's optimize_remat=True: grad, jacfwd(grad), checkpoint and vmap vs JAX's
    # stored values; grad(grad) JAX's ValueError: tests/test_optimize_remat.py
    elsewhere |= {"remat_opt", "closed_call"}
    # call_p (closed_call's rules on an open jaxpr): grad: tests/test_sparse_bcoo.py
    elsewhere |= {"call"}
    # compute_on2: grad vs JAX's stored values: tests/test_host_memory_more.py
    elsewhere |= {"compute_on"}
    # an inner jit: jvp, grad, hessian and their jaxprs vs JAX's: tests/test_jit_call.py
    elsewhere |= {"jit"}
    # no derivative (JAX's NotImplementedError): tests/test_dot_algorithm.py
    elsewhere |= {"scaled_dot"}
    # reference reads and writes under grad / vjp / jvp / linearize, against JAX's stored
    # values and errors: tests/test_refs_transforms.py
    elsewhere |= {"get", "swap", "addupdate"}
    missing = sorted(n for n, p in core.primitives.items()
                     if not p.nondiff and "jvp" not in p.unsupported
                     and n not in used | elsewhere)
    assert not missing, f"primitives whose jvp/transpose no table case checks: {missing}"


def test_every_primitive_has_rules():
    import astjax.transforms.ad  # noqa: F401
    missing = [name for name, p in sorted(core.primitives.items())
               if p.jvp is None and not p.nondiff
               and "jvp" not in p.unsupported]
    assert not missing, f"primitives without a jvp rule or a mark: {missing}"
    no_t = [p.name for p in core.primitives.values() if p.linear and p.transpose is None]
    assert not no_t


def test_integer_inputs_follow_jax():
    def f(x, n):
        return x * n

    with pytest.raises(astjax.AstjaxError, match="grad requires real"):
        astjax.grad(f, argnums=1)(1.0, 3)
    _, f_vjp = astjax.vjp(f, 2.0, 3)
    cx, cn = f_vjp(1.0)
    assert float(cx) == 3.0 and cn.dtype == astjax.float0
    _, t = astjax.jvp(f, (2.0, 3), (1.0, np.zeros((), astjax.float0)))
    assert float(t) == 3.0
