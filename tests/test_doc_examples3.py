"""Findings of JAX's docstring examples (tests/fuzz/doc_examples.py) on astjax:
`scipy.linalg.eigh_tridiagonal` computes as JAX does (eigenvalues by Sturm-count
bisection, eigenvectors by inverse iteration from `random.key(42)`), so its digits are
JAX's (JAX's values stored as literals; the dense `eigh` astjax used differed in the
last digits and ignored `tol`)."""
import numpy as np
import pytest

import astjax as jax

lin = jax.scipy.linalg
D = np.array([1., 2., 3., 4.], np.float32)
E = np.array([1., 1., 1.], np.float32)
_rng = np.random.RandomState(0)
D7, E7 = _rng.randn(7).astype(np.float32), _rng.randn(6).astype(np.float32)

DOC_W = [0.2547188103199005, 1.8227170705795288, 3.1772828102111816, 4.745281219482422]
DOC_V = [[0.7779505252838135, 0.5532710552215576, -0.2911737561225891, 0.0624651201069355], [-0.5797919034957886, 0.45518553256988525, -0.6339676976203918, 0.2339494377374649], [0.2339494675397873, -0.6339676380157471, -0.45518556237220764, 0.5797919034957886], [-0.0624651275575161, 0.2911737561225891, 0.5532711148262024, 0.7779505848884583]]
R7 = [-1.771981954574585, 0.36350685358047485, 0.8750233054161072, 1.072509765625, 1.7807550430297852, 2.3015382289886475, 2.602857828140259]
R7_TOL = [-1.771816611289978, 0.36097657680511475, 0.8746675252914429, 1.0697401762008667, 1.778503656387329, 2.298696994781494, 2.604310989379883]
R7_SEL = [[0.8750233054161072, 1.072509765625, 1.7807550430297852], [[0.032863277941942215, -0.002038658829405904, 0.9938804507255554], [0.1930295079946518, -0.009314517490565777, -0.10967569053173065], [-0.9362366199493408, 0.06366284191608429, 0.00956229493021965], [0.28501272201538086, 0.012197674252092838, -0.008893062360584736], [-0.03382917121052742, -0.2804111838340759, 0.0011508635943755507], [-0.005141825415194035, 0.15209205448627472, 0.0008121510618366301], [0.05212968960404396, 0.9454866051673889, 0.000744074466638267]]]
R7_C = [-1.771981954574585, 0.36350685358047485, 0.8750233054161072, 1.072509765625, 1.7807550430297852, 2.3015382289886475, 2.602857828140259]
ONE = [[1.764052391052246], [[1.0]]]


def _same(got, want):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want, np.float32))


def test_docstring_eigenvalues_are_jax_digits():
    # the docstring's example: JAX 0.2547188, 3.1772828 (astjax 0.25471878, 3.1772833)
    _same(lin.eigh_tridiagonal(D, E, eigvals_only=True), DOC_W)


def test_eigenvectors_by_inverse_iteration():
    w, v = lin.eigh_tridiagonal(D, E)
    _same(w, DOC_W)
    _same(v, DOC_V)


@pytest.mark.parametrize("jit", [False, True])
def test_random_tridiagonal(jit):
    f = lambda d, e: lin.eigh_tridiagonal(d, e, eigvals_only=True)  # noqa: E731
    _same((jax.jit(f) if jit else f)(D7, E7), R7)


def test_tol_stops_the_bisection_early():
    _same(lin.eigh_tridiagonal(D7, E7, eigvals_only=True, tol=1e-2), R7_TOL)


def test_select_by_index_with_eigenvectors():
    w, v = lin.eigh_tridiagonal(D7, E7, select="i", select_range=(2, 4))
    _same(w, R7_SEL[0])
    _same(v, R7_SEL[1])


def test_complex_hermitian_off_diagonal():
    _same(lin.eigh_tridiagonal(D7.astype(np.complex64), (E7 * 1j).astype(np.complex64),
                               eigvals_only=True), R7_C)


def test_one_by_one():
    w, v = lin.eigh_tridiagonal(D7[:1], E7[:0])
    _same(w, ONE[0])
    _same(v, ONE[1])


@pytest.mark.parametrize("d, e", [(np.arange(3), np.arange(2)),
                                  (np.ones(3, np.float32), np.ones(2, np.int32))])
def test_integer_or_mixed_dtypes_are_type_errors(d, e):
    with pytest.raises(TypeError, match="float32 and float64|same dtype"):
        lin.eigh_tridiagonal(d, e, eigvals_only=True)


def test_shard_repr_shows_the_data_as_printed():
    # JAX's docstring (Exported.in_shardings_jax): `Shard(..., replica_id=0, data=[0])`
    s = jax.device_put(np.arange(1, dtype=np.int32)).addressable_shards[0]
    assert repr(s) == ("Shard(device=CpuDevice(id=0), index=(slice(None, None, None),), "
                       "replica_id=0, data=[0])")


def test_custom_vjp_around_custom_vmap_forwards_def_vmap():
    # JAX's custom_vmap docstring: `f.def_vmap` on a custom_vjp wrapping a custom_vmap
    # reaches the custom_vmap (astjax: AttributeError)
    jnp = jax.numpy

    @jax.custom_vjp
    @jax.custom_batching.custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def f_vmap_rule(axis_size, in_batched, xs, ys):
        return jnp.cos(xs) * ys, True

    f.defvjp(lambda x, y: (f(x, y), (jnp.cos(x), jnp.sin(x), y)),
             lambda res, g: (res[0] * g * res[2], res[1] * g))
    _same(jax.vmap(f)(jnp.zeros(3), jnp.ones(3)), [1., 1., 1.])   # (the vmap rule's cos)
    _same(jax.grad(f)(jnp.zeros(()), jnp.ones(())), 1.)
    with pytest.raises(AttributeError):
        f.no_such_attribute  # noqa: B018


def test_eigh_tridiagonal_derivatives_are_the_eigen_decompositions():
    # JAX 0.10.2's jacfwd differentiates its bisection (the Gershgorin bounds':
    # [[0, 0, 0.1033, 0.8967], ...] here, whatever the eigenvalue) and its grad raises;
    # astjax gives the eigenvalues' and eigenvectors' derivatives (dw_i = v_i^2 on d)
    import astjax
    from astjax.scipy.linalg import eigh_tridiagonal
    d = np.array([1.0, 2.0, 3.5, -1.0], np.float32)
    e = np.array([0.5, -0.3, 0.8], np.float32)
    t = np.diag(d.astype(np.float64)) + np.diag(e.astype(np.float64), 1) + \
        np.diag(e.astype(np.float64), -1)
    _, v = np.linalg.eigh(t)
    jd, je = astjax.jacrev(lambda a, b: eigh_tridiagonal(a, b, eigvals_only=True),
                           argnums=(0, 1))(d, e)
    np.testing.assert_allclose(np.asarray(jd), (v ** 2).T, atol=2e-6)
    np.testing.assert_allclose(np.asarray(je), (2 * v[:-1] * v[1:]).T, atol=2e-6)
    w, vecs = eigh_tridiagonal(d, e)
    dv = astjax.jacfwd(lambda a: eigh_tridiagonal(a, e)[1])(d)   # vs central differences
    h = 1e-3
    for i in range(4):
        dp, dm = d.copy(), d.copy()
        dp[i] += h
        dm[i] -= h
        align = lambda u: u * np.sign(np.sum(u * np.asarray(vecs), 0))
        fd = (align(np.asarray(eigh_tridiagonal(dp, e)[1]))
              - align(np.asarray(eigh_tridiagonal(dm, e)[1]))) / (2 * h)
        np.testing.assert_allclose(np.asarray(dv)[..., i], fd, atol=2e-3)
