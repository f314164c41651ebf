"""The remaining `jax.lax` primitive objects of issue 13: `jnp.square` on `square_p`,
`reduce_window_p` (a general window computation), `select_and_scatter_p` (user select
and scatter) and `device_put_p` (a staged `device_put`). Values against NumPy references
and stored JAX 0.10.2 values, printed jaxprs against JAX's, derivatives against float64
finite differences, vmap against a loop, and JAX's errors where JAX has no rule."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError
from astjax.primitives.window_computations import select_and_scatter
from astjax.test_util import check_grads

X = np.array([[3., 1., 4., 1.], [5., 9., 2., 6.], [5., 3., 5., 8.]])
SRC = np.array([[1., 2.], [3., 4.]])

# ---------------------------------------------------------------------------- square


def test_jnp_square_prints_square_as_jax():
    x = np.arange(6, dtype=np.float32)
    assert str(astjax.make_jaxpr(jnp.square)(x)) == \
        "{ lambda ; a:f32[6]. let b:f32[6] = square a in (b,) }"
    # x ** 2 stays integer_pow in JAX
    assert str(astjax.make_jaxpr(lambda x: x ** 2)(x)) == \
        "{ lambda ; a:f32[6]. let b:f32[6] = integer_pow[y=2] a in (b,) }"
    assert str(astjax.make_jaxpr(jnp.square)(np.arange(3, dtype=np.int32))) == \
        "{ lambda ; a:i32[3]. let b:i32[3] = square a in (b,) }"


def test_square_lowers_as_jax():
    text = astjax.jit(jnp.square).lower(np.arange(6, dtype=np.float32)).as_text()
    assert "chlo.square %arg0 : tensor<6xf32> -> tensor<6xf32>" in text
    text = astjax.jit(jnp.square).lower(np.arange(6, dtype=np.int32)).as_text()
    assert "stablehlo.multiply %arg0, %arg0 : tensor<6xi32>" in text


@pytest.mark.parametrize("x", [np.array([-3, 0, 7], np.int8), np.array([True, False]),
                               np.array([1.5, -2.25], np.float16),
                               np.array([1 + 2j, -3j], np.complex64)])
def test_jnp_square_values_and_dtypes(x):
    out = jnp.square(x)
    ref = np.square(x.astype(np.int32) if x.dtype == np.bool_ else x)
    assert out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(astjax.jit(jnp.square)(x), ref)


def test_square_jvps_print_as_jax():
    # JAX's JVPs of atan (and tan, asin, acos, asinh, atan2) use square
    jx = astjax.make_jaxpr(astjax.grad(lambda x: jnp.arctan(x)))(np.float32(0.5))
    assert "square" in str(jx) and "integer_pow" not in str(jx)


def test_square_derivatives(x64):
    check_grads(jnp.square, (np.array([0.3, -1.2, 2.0]),), order=2)
    check_grads(lambda x: jnp.var(x), (np.array([0.3, -1.2, 2.0, 5.0]),), order=2)
    for f in (jnp.tan, jnp.arcsin, jnp.arccos, jnp.arctan, jnp.arcsinh):
        check_grads(f, (np.array([0.3, -0.2, 0.45]),), order=2)
    check_grads(jnp.arctan2, (np.array([0.3, -1.2]), np.array([2.0, 0.7])), order=2)


# --------------------------------------------------------------------- reduce_window

# stored from JAX 0.10.2 (float64)
PROD = [[135.0, 72.0, 48.0], [675.0, 270.0, 480.0]]
PROD_JVP = [[222.0, 134.0, 92.0], [570.0, 309.0, 476.0]]
LSE = [[9.028373325723342, 6.1487551809444], [9.056699328684436, 8.17193539332868],
       [5.758623675679513, 8.048587351573742]]
ARGMAX = [[4.0, 5.0, 9.0, 6.0], [2.0, 4.0, 5.0, 7.0]]
DIL = [[9.0, 4.0, 6.0], [9.0, 4.0, 6.0], [9.0, 17.0, 4.0], [9.0, 17.0, 4.0],
       [12.0, 13.0, 7.0]]


def _prod(x):
    return lax.reduce_window(x, 1., lax.mul, (2, 2), (1, 1), "VALID")


def _lse(x):
    return lax.reduce_window(x, -jnp.inf, jnp.logaddexp, (2, 3), (1, 2), "SAME", (1, 1), (1, 1))


def _argmax(a, b):
    (va, ia), (vb, ib) = a, b
    keep = va >= vb
    return lax.select(keep, va, vb), lax.select(keep, ia, ib)


def _pairs(y):
    return lax.reduce_window((y, jnp.arange(8.)), (-jnp.inf, 0.), _argmax, (3,), (2,), "SAME")


def _dilated(x):   # lax.add from a non-identity: the general primitive, as in JAX
    return lax.reduce_window(x, 2., lax.add, (2, 2), (1, 1), ((1, 0), (0, 1)), (2, 1), (1, 2))


def _reference(f, *args):
    """The NumPy reference interpreter on the staged program."""
    closed = astjax.make_jaxpr(f)(*args)
    return astjax.core.eval_reference(closed.jaxpr, closed.consts, *args)


@pytest.mark.parametrize("f, args, want", [
    (_prod, (X,), [PROD]), (_lse, (X,), [LSE]), (_dilated, (X,), [DIL]),
    (_pairs, (np.array([3., 1., 4., 1., 5., 9., 2., 6.]),), ARGMAX)])
def test_reduce_window_values(f, args, want, x64):
    out = astjax.tree_util.tree_leaves(f(*args))
    jit_out = astjax.tree_util.tree_leaves(astjax.jit(f)(*args))
    for o, j, r, w in zip(out, jit_out, _reference(f, *args), want):
        np.testing.assert_allclose(o, w, rtol=1e-12)
        np.testing.assert_allclose(j, w, rtol=1e-12)
        np.testing.assert_allclose(r, w, rtol=1e-12)


def test_reduce_window_prints_as_jax(x64):
    assert str(astjax.make_jaxpr(_prod)(X)) == """\
{ lambda ; a:f64[3,4]. let
    b:f64[2,3] = reduce_window[
      base_dilation=(1, 1)
      consts=()
      jaxpr={ lambda ; c:f64[] d:f64[]. let e:f64[] = mul c d in (e,) }
      padding=((0, 0), (0, 0))
      window_dilation=(1, 1)
      window_dimensions=(2, 2)
      window_strides=(1, 1)
    ] a 1.0:f64[]
  in (b,) }"""


def test_reduce_window_jvp(x64):
    _, t = astjax.jvp(_prod, (X,), (np.ones_like(X),))
    np.testing.assert_allclose(t, PROD_JVP, rtol=1e-12)
    check_grads(_prod, (X,), order=2, modes=("fwd",))
    check_grads(_lse, (X,), order=1, modes=("fwd",))
    check_grads(lambda y: _pairs(y)[0], (np.array([3., 1., 4., 1.5, 5., 9., 2., 6.]),),
                order=1, modes=("fwd",))


def test_reduce_window_errors_as_jax(x64):
    # reverse mode: JAX's linearization ValueError, located here
    with pytest.raises(ValueError, match="Linearization failed") as e:
        astjax.grad(lambda x: _prod(x).sum())(X)
    assert isinstance(e.value, AstjaxError)
    # a tangent on the initial value: JAX's TypeError
    with pytest.raises(TypeError, match="non-zero init_value_tangent"):
        astjax.jvp(lambda x: lax.reduce_window(x, x[0, 0], lax.mul, (2, 2), (1, 1), "VALID"),
                   (X,), (X,))
    with pytest.raises(TypeError, match="inconsistent dtypes"):
        lax.reduce_window(X, np.float32(1.), lax.mul, (2, 2), (1, 1), "VALID")
    with pytest.raises(ValueError, match="same tree structure"):
        lax.reduce_window((X, X), 1., lax.mul, (2, 2), (1, 1), "VALID")


def test_reduce_window_vmap(x64):
    xs = np.random.RandomState(0).randn(3, 3, 4)
    for f in (_prod, _lse, _dilated):
        np.testing.assert_allclose(astjax.vmap(f)(xs), np.stack([f(x) for x in xs]),
                                   rtol=1e-12)
    ys = np.random.RandomState(1).randn(2, 8)
    outs = astjax.vmap(_pairs)(ys)
    for i, y in enumerate(ys):
        for o, r in zip(outs, _pairs(y)):
            np.testing.assert_allclose(o[i], r)
    # the JVP under vmap
    _, t = astjax.vmap(lambda x: astjax.jvp(_prod, (x,), (x,)))(xs)
    np.testing.assert_allclose(t, np.stack([astjax.jvp(_prod, (x,), (x,))[1] for x in xs]),
                               rtol=1e-12)


# ---------------------------------------------------------------- select_and_scatter

SS_GE = [[0.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 2.0], [0.0, 0.0, 0.0, 4.0]]
SS_LT = [[10.0, 40.0, 10.0, 1800.0], [10.0, 10.0, 5040.0, 10.0], [10.0, 10.0, 10.0, 10.0]]
S2 = np.arange(1., 10.).reshape(3, 3)


def _ss_ge(x, s):
    return select_and_scatter(x, lax.ge, (2, 2), (1, 2), ((0, 0), (0, 0)), s, 0., lax.add)


def _ss_lt(x, s):
    return select_and_scatter(x, lambda a, b: a < b, (2, 3), (1, 1), ((1, 0), (0, 1)), s,
                              10., lax.mul)


@pytest.mark.parametrize("f, s, want", [(_ss_ge, SRC, SS_GE), (_ss_lt, S2, SS_LT)])
def test_select_and_scatter_values(f, s, want):
    np.testing.assert_array_equal(f(X, s), want)
    np.testing.assert_array_equal(astjax.jit(f)(X, s), want)
    np.testing.assert_array_equal(_reference(f, X, s)[0], want)


def test_select_and_scatter_prints_as_jax():
    assert str(astjax.make_jaxpr(_ss_ge)(X.astype(np.float32), SRC.astype(np.float32))) == """\
{ lambda ; a:f32[3,4] b:f32[2,2]. let
    c:f32[3,4] = select_and_scatter[
      padding=((0, 0), (0, 0))
      scatter_consts=()
      scatter_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = add d e in (f,) }
      select_consts=()
      select_jaxpr={ lambda ; g:f32[] h:f32[]. let i:bool[] = ge g h in (i,) }
      window_dimensions=(2, 2)
      window_strides=(1, 2)
    ] a b 0.0:f32[]
  in (c,) }"""


def test_select_and_scatter_vmap_and_no_derivative():
    xs = np.random.RandomState(2).randn(3, 3, 4).astype(np.float32)
    ss = np.random.RandomState(3).randn(3, 3, 3).astype(np.float32)
    np.testing.assert_array_equal(astjax.vmap(_ss_lt)(xs, ss),
                                  np.stack([_ss_lt(x, s) for x, s in zip(xs, ss)]))
    np.testing.assert_array_equal(astjax.vmap(_ss_lt, (0, None))(xs, S2),
                                  np.stack([_ss_lt(x, S2) for x in xs]))
    # JAX has no differentiation rule for it: NotImplementedError, located here
    with pytest.raises(NotImplementedError, match="select_and_scatter") as e:
        astjax.jvp(lambda x: _ss_ge(x, SRC), (X,), (X,))
    assert isinstance(e.value, AstjaxError)
    with pytest.raises(TypeError, match="source"):
        _ss_ge(X, S2)


# ------------------------------------------------------------------------ device_put


def test_staged_device_put_prints_as_jax():
    x = np.arange(6, dtype=np.float32)
    assert str(astjax.make_jaxpr(lambda x: astjax.device_put(x))(x)) == """\
{ lambda ; a:f32[6]. let
    b:f32[6] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(None,)
      srcs=(None,)
    ] a
  in (b,) }"""
    assert str(astjax.make_jaxpr(lambda x, y: astjax.device_put(
        (x, y), astjax.devices()[0], donate=True))(x, x)) == """\
{ lambda ; a:f32[6] b:f32[6]. let
    c:f32[6] d:f32[6] = device_put[
      copy_semantics=(ArrayCopySemantics.DONATE_INPUT, ArrayCopySemantics.DONATE_INPUT)
      devices=(CpuDevice(id=0), CpuDevice(id=0))
      srcs=(None, None)
    ] a b
  in (c, d) }"""
    text = astjax.jit(lambda x: astjax.device_put(x)).lower(x).as_text()
    assert "return %arg0 : tensor<6xf32>" in text
    with pytest.raises(ValueError, match="may_alias and donate"):
        astjax.make_jaxpr(lambda x: astjax.device_put(x, donate=True, may_alias=True))(x)


def test_staged_device_put_derivatives_and_vmap(x64):
    dev = astjax.devices()[0]
    f = lambda x: astjax.device_put(x * x, dev) * 3.0
    x = np.array([0.5, -1.0, 2.0])
    check_grads(f, (x,), order=2)
    np.testing.assert_allclose(astjax.jit(astjax.grad(lambda x: f(x).sum()))(x), 6 * x)
    # the transpose puts the cotangent back: devices and srcs swapped, always copied
    jx = str(astjax.make_jaxpr(astjax.grad(lambda x: f(x).sum()))(x))
    assert "copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)\n      devices=(None,)\n" \
           "      srcs=(CpuDevice(id=0),)" in jx
    _, (tx, ty) = astjax.jvp(lambda a, b: astjax.device_put((a, b)), (x, x),
                             (x, np.zeros(3)))
    np.testing.assert_array_equal(tx, x)
    np.testing.assert_array_equal(ty, 0)
    xs = np.arange(6.).reshape(2, 3)
    np.testing.assert_array_equal(astjax.vmap(f)(xs), np.stack([f(r) for r in xs]))
    with pytest.raises(ValueError, match="donate=True is not allowed"):
        astjax.grad(lambda x: astjax.device_put(x, donate=True).sum())(x)


def test_slice_in_dim_passes_its_strides_as_jax():
    # JAX 0.10.2's jaxprs: slice_in_dim / index_in_dim bind `slice` with the strides
    # (ones included); lax.slice and indexing leave them None
    ones = astjax.numpy.ones
    texts = [str(astjax.make_jaxpr(f)(x)).splitlines()[1].strip() for f, x in [
        (lambda x: lax.slice_in_dim(x, 0, 2), ones(3)),
        (lambda x: lax.index_in_dim(x, 1, 1), ones((2, 3))),
        (lambda x: lax.slice(x, (0,), (2,)), ones(3))]]
    assert texts == [
        "b:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a",
        "b:f32[2,1] = slice[limit_indices=(2, 2) start_indices=(0, 1) strides=(1, 1)] a",
        "b:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] a"]
