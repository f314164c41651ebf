"""Findings of the transformation-chain and derivative-rule sweeps, third round
(tests/fuzz/chain_sweep.py depth 3, tests/fuzz/reduce_rule_sweep.py): derivatives whose
float32 bits must be JAX 0.10.2's (JAX's results stored as literal bits, one per host kind where
they differ: tests/jax_hosts.py)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from jax_hosts import assert_one_of


def _bits(a):
    return np.asarray(a).ravel().view(np.uint32).tolist()


def test_per_example_dot_weight_cotangent_bits_are_jaxs():
    # a right operand's cotangent summing over x's free axis is JAX's dot_general(ct, x)
    # + transpose (astjax's dot_general(x, ct) summed in another order: 1-3 ulps off);
    # reduce_rule_sweep: dot / matmul / einsum / tensordot / inner vmap_grad 614 -> 0
    def loss(x, y, w):
        return jnp.sum(jnp.dot(x, y) * w)
    rs = np.random.RandomState(8)
    x = rs.uniform(-2, 2, (2, 8, 2)).astype(np.float32)
    y = rs.uniform(-2, 2, (2, 2, 1)).astype(np.float32)
    w = rs.uniform(0.5, 2, (8, 1)).astype(np.float32)
    got = jax.jit(jax.vmap(jax.grad(loss, 1), in_axes=(0, 0, None)))(x, y, w)
    assert _bits(got) == [1078874000, 3190149533, 3240528093, 1090372878]


def test_an_outer_product_weight_cotangent_needs_no_transpose():
    # (the outer-product case keeps dot_general(x, ct) in y's axis order: the same
    # bits as JAX's, one fusion per weight where JAX's leaves a transpose and a copy)
    def loss(w, a):
        return jnp.sum(jnp.tanh(a[None] @ w))
    text = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0))).lower(
        jnp.ones((8, 4)), jnp.ones((3, 8))).as_text()
    assert "stablehlo.transpose" not in text


_RS = np.random.RandomState(0)
A45 = _RS.uniform(-2, 2, (4, 5)).astype(np.float32)
V45 = _RS.uniform(0.5, 2, (4, 5)).astype(np.float32)
T45 = _RS.uniform(-1, 1, (4, 5)).astype(np.float32)


def _svd_norm_grad2(ord_):
    def h(x, w, v):
        return jnp.sum(jax.grad(lambda x, w: jnp.linalg.norm(x, ord=ord_) * w)(x, w) * v)
    return _bits(jax.jit(jax.grad(h))(A45, np.float32(1.3), V45))


def test_svd_second_derivative_bits_are_jaxs():
    # the svd JVP is JAX's formula op for op: the diagonal gathered / scattered (was a
    # mask-and-sum), s as a row broadcast at each operation (was pre-broadcast: XLA then
    # divides instead of multiplying by the reciprocal) and the identity as iota == iota
    # (a literal identity is simplified otherwise); reduce_rule_sweep: norm_mat2 grad2
    # 190 -> 0, norm_nuc grad2 251 -> 0, jvp 2 -> 0
    assert_one_of(_svd_norm_grad2("nuc"), {"epyc-a": [
        1075883897, 1072964034, 3208706780, 1071444239, 1080592460, 1063979816, 3218828699,
        1054245820, 3222086082, 3212503542, 3180622000, 1070547127, 3182707456, 1070546402,
        1067076809, 1053103932, 1070182346, 3178643488, 1070066001, 1069578585],
        "epyc-b": [
        1075883902, 1072964060, 3208706780, 1071444236, 1080592466, 1063979794, 3218828719,
        1054245852, 3222086081, 3212503572, 3180621916, 1070547133, 3182707448, 1070546399,
        1067076821, 1053103978, 1070182356, 3178643392, 1070066007, 1069578590]},
        'svd nuc grad2')
    assert_one_of(_svd_norm_grad2(2), {"epyc-a": [
        3211651692, 3207006847, 3122664640, 3203561867, 1063524567, 3219532192, 3225151230,
        1078343076, 1078354659, 1072607463, 3226559147, 3226073554, 1070284565, 1053404568,
        1078812343, 1078248499, 1056016578, 1078460207, 1085516979, 3224604538],
        "epyc-b": [
        3211651482, 3207006618, 3122819200, 3203562049, 1063524361, 3219532238, 3225151140,
        1078342889, 1078354407, 1072607533, 3226559042, 3226073378, 1070284199, 1053403092,
        1078812247, 1078248245, 1056015346, 1078460169, 1085516892, 3224604276]},
        'svd 2-norm grad2')


def test_svd_jvp_bits_are_jaxs():
    def f(a, t):
        return jax.jvp(lambda a: jnp.linalg.norm(a, ord="nuc"), (a,), (t,))[1]
    assert_one_of(_bits(jax.jit(f)(A45, T45)), {"epyc-a": [3209217257],
        "epyc-b": [
        3209217258]},
                  'svd jvp')


def test_percentile_jvp_bits_are_jaxs():
    # ranks are read with one gather, as JAX's indexing (a one-hot masked sum, fused by
    # XLA with the interpolation, rounded the tangent otherwise: 4 of these 16 off by
    # one ulp); reduce_rule_sweep percentile jvp 4 -> 0
    rs = np.random.RandomState(sum(map(ord, "percentile")))
    x = rs.uniform(-2, 2, (16, 4, 5)).astype(np.float32)
    t = rs.uniform(-1, 1, (16, 4, 5)).astype(np.float32)
    got = jax.jit(jax.vmap(lambda a, t: jax.jvp(lambda a: jnp.percentile(a, 40.0),
                                                (a,), (t,))[1]))(x, t)
    assert _bits(got) == [
        3196510498, 3205090488, 3185977261, 3173407544, 1059508620, 1052105888, 1050270621,
        1045479734, 1061824986, 1040438838, 3195495560, 3199544848, 1061525062, 3196652386,
        3193297504, 1031309713]


def test_a_negative_zero_rank_keeps_its_sign():
    # (the masked sum added +0.0s to it: +0.0 where JAX returns -0.0)
    assert np.signbit(np.asarray(jnp.quantile(jnp.array([-0.0, 1.0]), 0.0, method="lower")))
    assert np.signbit(np.asarray(jnp.median(jnp.array([-0.0, -0.0, 1.0]))))
    assert jnp.quantile(np.zeros((3, 0), np.float32), 0.5, axis=0).shape == (0,)


def test_pinv_is_differentiated_by_jaxs_rule():
    # jnp.linalg.pinv is a custom_jvp function with JAX's rule (Golub and Pereyra's
    # derivative, in JAX's association order), as in JAX; astjax differentiated through
    # the SVD (up to ~1900 ulps off JAX's; reduce_rule_sweep pinv 1092 -> 0 of 1440)
    eqns = jax.make_jaxpr(jnp.linalg.pinv)(A45).eqns
    assert [e.primitive.name for e in eqns] == ["custom_jvp_call"]
    g = jax.jit(jax.grad(lambda a: jnp.sum(jnp.linalg.pinv(a))))(A45)
    assert_one_of(_bits(g)[:8], {"epyc-a": [
        1057794661, 1071304216, 3223128420, 1077856455, 1077665639,
        1076837389, 3225793558, 1070084990],
        "epyc-b": [
        1057794622, 1071304218, 3223128421, 1077856454, 1077665649, 1076837428, 3225793568,
        1070085033]}, 'pinv grad')


def _uniform(seed, *shapes):
    rs = np.random.RandomState(seed)
    return [rs.uniform(-2, 2, s).astype(np.float32) for s in shapes]


def test_trace_sums_the_masked_matrix_as_jax():
    # jnp.trace is JAX's masked sum of the whole matrix (was the diagonal's own sum,
    # another association: 1 ulp off), and axis1 == axis2 is JAX's ValueError
    a, = _uniform(0, (4, 4))
    assert _bits(jax.jit(jnp.trace)(a)) == [1050060708]
    with pytest.raises(ValueError, match="axis1 and axis2 can not be same"):
        jnp.trace(a, axis1=1, axis2=-1)


def test_det_jvp_is_jaxs_cofactor_solve():
    # det's JVP is JAX's _cofactor_solve op for op (running products by cumprod, the
    # last pivot scattered, one rank test): reduce_rule_sweep det 229 -> 132 of 672
    a, = _uniform(10, (4, 4))
    assert_one_of(_bits(jax.jit(jax.grad(jnp.linalg.det))(a)), {"epyc-a": [
        3213309700, 3227292414, 3190136011, 3228918077, 3221502130, 3229141633, 3217367034,
        3230469053, 1075926848, 1085277510, 1066962184, 1088854102, 3225581159, 3232849071,
        3210803682, 3235676123],
        "epyc-b": [
        3213309701, 3227292415, 3190136025, 3228918077, 3221502129, 3229141632, 3217367031,
        3230469053, 1075926848, 1085277510, 1066962184, 1088854102, 3225581158, 3232849071,
        3210803684, 3235676123]}, 'det grad')
    a, t = _uniform(3, (4, 4), (4, 4))
    t = t / 2
    assert_one_of(_bits(jax.jit(lambda a, t: jax.jvp(jnp.linalg.det, (a,), (t,)))(a, t))[1],
                  {"epyc-a": 3230050522, "epyc-b": 3230050518}, "det jvp")


def test_slogdet_jvp_is_a_trace_of_solve():
    # slogdet's JVP is JAX's jnp.trace(jnp.linalg.solve(a, da)) (the trace was 1 ulp off);
    # reduce_rule_sweep slogdet jvp 4 -> 0, grad2 186 -> 0
    rs = np.random.RandomState(6)
    a = rs.uniform(-2, 2, (4, 4)).astype(np.float32)
    t = rs.uniform(-1, 1, (4, 4)).astype(np.float32)
    got = jax.jit(lambda a, t: jax.jvp(lambda y: jnp.linalg.slogdet(y)[1], (a,), (t,)))(a, t)
    assert_one_of(_bits(got), {"epyc-a": [1031597770, 1077249471],
        "epyc-b": [
        1031597770, 1077249472]}, 'slogdet jvp')


def test_triangular_solve_jvp_in_jaxs_order():
    # triangular_solve's derivative in the matrix is JAX's: (op(A)^-1 (-dA)) X unless b
    # has more rows than columns (astjax always solved op(A)^-1 (-dA X): other bits), so
    # lu's and det's second derivatives are JAX's (reduce_rule_sweep lu_u grad2 208 -> 0,
    # det grad2 132 -> 0)
    a, = _uniform(0, (4, 4))

    def f(a):
        return jnp.sum(jax.lax.linalg.lu(a)[0])
    got = jax.jit(jax.grad(lambda a: jnp.sum(jax.grad(f)(a) * a)))(a)
    assert_one_of(_bits(got), {"epyc-a": [
        3199972821, 1073569370, 1067974990, 1058916316, 1055918935,
        1033354144, 3209726492, 1065353215, 1066799661, 1062155808,
        1059408838, 1065701263, 3200620332, 3172770720, 1057950414,
        1053512784],
        "epyc-b": [
        3199972825, 1073569370, 1067974990, 1058916315, 1055918938, 1033354144, 3209726493,
        1065353216, 1066799662, 1062155808, 1059408838, 1065701263, 3200620333, 3172770720,
        1057950414, 1053512785]}, 'lu grad2')


def test_triangular_solve_jvp_conjugates_a():
    # conjugate_a=True: the matrix's tangent is conjugated too (was silently used as is)
    rs = np.random.RandomState(1)
    a = (rs.randn(3, 3) + 1j * rs.randn(3, 3)).astype(np.complex64) + 3 * np.eye(3)
    b = (rs.randn(3, 2) + 1j * rs.randn(3, 2)).astype(np.complex64)
    t = (rs.randn(3, 3) + 1j * rs.randn(3, 3)).astype(np.complex64)

    def f(a):
        return jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=True,
                                               conjugate_a=True)
    got = np.asarray(jax.jvp(f, (a.astype(np.complex64),), (t,))[1]).ravel()[:3]
    np.testing.assert_allclose(got, [-0.02635344 + 0.03354181j, 0.04200349 - 0.00643961j,
                                     -0.03299986 - 0.05184666j], rtol=1e-5)
