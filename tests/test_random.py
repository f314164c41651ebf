"""`astjax.random` against stored values that `jax.random` (jax 0.10.2, default
threefry2x32, partitionable) produced for the same keys, shapes and dtypes: the bits
must match exactly. Each entry is (expression, dtype, shape, encoding, data); floats
are stored as bit patterns. They were generated once by evaluating each expression
with `import jax; r = jax.random; k = r.PRNGKey(0)` (jax is not needed here)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import random as r
from astjax.errors import AstjaxError

jax = astjax  # the expressions below are written against `jax.*` names
k = r.PRNGKey(0)

EXPECTED = {
    'key0': ('r.PRNGKey(0)', 'uint32', (2,), 'values', [0, 0]),
    'key42': ('r.PRNGKey(42)', 'uint32', (2,), 'values', [0, 42]),
    'keyneg': ('r.PRNGKey(-7)', 'uint32', (2,), 'values', [0, 4294967289]),
    'key_big': ('r.PRNGKey(2**40 + 5)', 'uint32', (2,), 'values', [0, 5]),
    'split': ('r.split(k)', 'uint32', (2, 2), 'values', [1797259609, 2579123966, 928981903, 3453687069]),
    'split3': ('r.split(r.PRNGKey(1), 3)', 'uint32', (3, 2), 'values', [507451445, 1853169794, 1948878966, 4237131848, 2441914641, 3819641963]),
    'split_shape': ('r.split(k, (2, 2))', 'uint32', (2, 2, 2), 'values', [1797259609, 2579123966, 928981903, 3453687069, 4146024105, 2718843009, 2467461003, 3840466878]),
    'fold_in': ('r.fold_in(k, 17)', 'uint32', (2,), 'values', [2763999920, 494843597]),
    'bits': ('r.bits(k, (3,))', 'uint32', (3,), 'values', [4070199207, 4202968722, 1427181096]),
    'bits8': ('r.bits(k, (5,), jnp.uint8)', 'uint8', (5,), 'values', [167, 146, 40, 53, 183]),
    'bits16': ('r.bits(r.PRNGKey(9), (2, 3), jnp.uint16)', 'uint16', (2, 3), 'values', [28248, 9960, 27069, 56649, 8964, 38750]),
    'uniform': ('r.uniform(k, (2, 3))', 'float32', (2, 3), 'bits', [1064475214, 1064993846, 1051337244, 1055913296, 1058137146, 1042905504]),
    'uniform_scalar': ('r.uniform(r.PRNGKey(11))', 'float32', (), 'bits', [1045877064]),
    'uniform_mm': ('r.uniform(r.PRNGKey(3), (4,), minval=-2., maxval=5.)', 'float32', (4,), 'bits', [3216877086, 1083319539, 1076018069, 1083869698]),
    'uniform_f16': ('r.uniform(k, (3,), jnp.float16)', 'float16', (3,), 'bits', [13560, 13008, 11008]),
    'uniform_bf16': ('r.uniform(k, (3,), jnp.bfloat16)', 'bfloat16', (3,), 'bits', [16166, 16146, 15904]),
    'normal': ('r.normal(k, (5,))', 'float32', (5,), 'bits', [1070576317, 1073847792, 3202220055, 3181445666, 1043616044]),
    'normal_s': ('r.normal(r.PRNGKey(7))', 'float32', (), 'bits', [1055328331]),
    'normal_2d': ('r.normal(r.split(k)[1], (3, 2))', 'float32', (3, 2), 'bits', [3223081266, 3221375127, 1045592624, 3199534216, 3208843451, 3214334665]),
    'bernoulli': ('r.bernoulli(k, 0.3, (8,))', 'bool', (8,), 'values', [0, 0, 0, 0, 0, 1, 0, 0]),
    'bernoulli_p': ('r.bernoulli(k, jnp.array([0.1, 0.5, 0.9]))', 'bool', (3,), 'values', [0, 0, 1]),
    'randint': ('r.randint(k, (6,), 0, 10)', 'int32', (6,), 'values', [9, 0, 2, 3, 1, 7]),
    'randint_neg': ('r.randint(r.PRNGKey(5), (6,), -100, 1000)', 'int32', (6,), 'values', [661, 848, 3, 536, 284, -99]),
    'randint_u8': ('r.randint(k, (6,), 0, 256, jnp.uint8)', 'uint8', (6,), 'values', [101, 80, 200, 61, 3, 211]),
    'randint_i16': ('r.randint(k, (4,), -5, 5, jnp.int16)', 'int16', (4,), 'values', [4, -5, -3, -2]),
    'truncated_normal': ('r.truncated_normal(k, -1., 2., (5,))', 'float32', (5,), 'bits', [1069626941, 1071622803, 3191004714, 1037669698, 1050893586]),
    'gumbel': ('r.gumbel(k, (4,))', 'float32', (4,), 'bits', [1077614729, 1081428380, 3183898615, 1049490596]),
    'exponential': ('r.exponential(k, (4,))', 'float32', (4,), 'bits', [1077726950, 1081473707, 1053740146, 1059185393]),
    'laplace': ('r.laplace(k, (4,))', 'float32', (4,), 'bits', [3222303331, 3226050091, 1053897580, 1032095730]),
    'logistic': ('r.logistic(k, (4,))', 'float32', (4,), 'bits', [1077501497, 1081382888, 3207767447, 3187703960]),
    'permutation': ('r.permutation(k, 10)', 'int32', (10,), 'values', [0, 1, 8, 5, 6, 4, 3, 2, 7, 9]),
    'permutation_arr': ('r.permutation(r.PRNGKey(2), jnp.arange(12.).reshape(4, 3))', 'float32', (4, 3), 'bits', [1086324736, 1088421888, 1090519040, 1077936128, 1082130432, 1084227584, 1091567616, 1092616192, 1093664768, 0, 1065353216, 1073741824]),
    'choice': ('r.choice(k, 10, (3,))', 'int32', (3,), 'values', [9, 0, 2]),
    'choice_norep': ('r.choice(k, 10, (3,), replace=False)', 'int32', (3,), 'values', [0, 1, 8]),
    'choice_p': ('r.choice(k, 5, (4,), p=jnp.array([.1, .2, .3, .2, .2]))', 'int32', (4,), 'values', [0, 0, 3, 2]),
    'choice_arr': ('r.choice(r.PRNGKey(4), jnp.arange(20.).reshape(5, 4), (2,), replace=False)', 'float32', (2, 4), 'bits', [1098907648, 1099431936, 1099956224, 1100480512, 1082130432, 1084227584, 1086324736, 1088421888]),
    'categorical': ('r.categorical(k, jnp.array([[0., 1., 2.], [2., 1., 0.]]))', 'int32', (2,), 'values', [1, 0]),
    'categorical_shape': ('r.categorical(r.PRNGKey(8), jnp.array([0.5, 1., 2., 0.]), shape=(5,))', 'int32', (5,), 'values', [2, 3, 2, 1, 2]),
    'glorot_normal': ('jax.nn.initializers.glorot_normal()(k, (3, 4))', 'float32', (3, 4), 'bits', [1063419529, 1065705554, 3196085504, 3174744690, 1037112361, 3205363764, 3197274150, 1049772800, 1053026004, 3205161708, 1066088961, 3212990988]),
    'he_normal': ('jax.nn.initializers.he_normal()(k, (2, 5))', 'float32', (2, 5), 'bits', [1070849459, 1073317423, 3203413063, 3182342805, 1044616006, 3213151461, 3205042536, 1057542329, 1060585423, 3212962454]),
    'lecun_normal': ('jax.nn.initializers.lecun_normal()(k, (4, 2))', 'float32', (4, 2), 'bits', [1062460851, 1064928815, 3195024455, 3173954197, 1036227398, 3204762853, 3196653928, 1049153721]),
    'glorot_uniform': ('jax.nn.initializers.glorot_uniform()(k, (3, 3))', 'float32', (3, 3), 'bits', [1063597212, 1064634476, 3198925768, 3179304320, 1041179088, 3207283504, 3200408664, 1052903216, 1056747616]),
    'init_normal': ('jax.nn.initializers.normal(0.5)(k, (3,))', 'float32', (3,), 'bits', [1062187709, 1065459184, 3193831447]),
}


def _bits(v):
    v = np.asarray(v)
    if v.dtype.kind == "f" or v.dtype.name == "bfloat16":
        return v.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[v.itemsize]).ravel().tolist()
    return [int(x) for x in v.ravel().tolist()]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax_bits(name):
    expr, dtype, shape, _, want = EXPECTED[name]
    got = eval(expr)
    assert str(np.asarray(got).dtype) == dtype and np.shape(got) == shape, name
    assert _bits(got) == want, name


def test_under_jit_same_bits():
    @astjax.jit
    def sample(key):
        k1, k2 = r.split(key)
        return r.normal(k1, (5,)), r.uniform(k2, (2, 3)), r.randint(key, (6,), 0, 10)
    n, u, i = sample(k)
    assert _bits(n) == _bits(r.normal(r.split(k)[0], (5,)))
    assert _bits(u) == _bits(r.uniform(r.split(k)[1], (2, 3)))
    assert _bits(i) == EXPECTED["randint"][4]


def test_staged_seed_and_fold_in():
    f = astjax.jit(lambda s: r.fold_in(r.PRNGKey(s), 17))
    assert _bits(f(np.int32(0))) == EXPECTED["fold_in"][4]
    assert _bits(astjax.jit(r.PRNGKey)(np.int32(-7))) == EXPECTED["keyneg"][4]


def test_key_api():
    key = r.key(0)
    assert _bits(r.key_data(key)) == [0, 0]
    assert _bits(r.key_data(r.wrap_key_data(np.array([0, 42], np.uint32)))) == EXPECTED["key42"][4]


def test_errors():
    with pytest.raises(AstjaxError):
        r.normal(np.zeros(3, np.float32), (2,))
    with pytest.raises(AstjaxError):
        r.uniform(k, (2,), jnp.int32)
    with pytest.raises(AstjaxError):
        r.randint(k, (2,), 0, 5, jnp.float32)
    with pytest.raises(AstjaxError):
        r.choice(k, 3, (5,), replace=False)


def test_statistics():
    x = np.asarray(r.normal(r.PRNGKey(1), (20000,)))
    assert abs(x.mean()) < 0.03 and abs(x.std() - 1) < 0.03
    b = np.asarray(r.bernoulli(r.PRNGKey(2), 0.25, (20000,)))
    assert abs(b.mean() - 0.25) < 0.02


# Samplers that compose several transcendental ops (or a QR): same algorithm as JAX,
# equal to within a few ulps (XLA may fuse differently), stored the same way.
CLOSE = [
    ('r.cauchy(k, (3,))', 'float32', (3,), [1086382396, 1097689093, 3205819328]),
    ('r.lognormal(k, 0.5, (3,))', 'float32', (3,), [1074794089, 1076899455, 1062083223]),
    ('r.pareto(k, 2.0, (3,))', 'float32', (3,), [1082909138, 1088070925, 1067230494]),
    ('r.rayleigh(k, 2.0, (3,))', 'float32', (3,), [1059577771, 1054152765, 1077805385]),
    ('r.wald(k, 1.5, (3,))', 'float32', (3,), [1055918390, 1057297098, 1058941963]),
    ('r.weibull_min(k, 2.0, 1.5, (3,))', 'float32', (3,), [1082369368, 1084033169, 1066131842]),
    ('r.maxwell(k, (3,))', 'float32', (3,), [1076388835, 1065202772, 1064764849]),
    ('r.double_sided_maxwell(k, 0.5, 2.0, (3,))', 'float32', (3,), [1080416815, 1080655107, 3228209244]),
    ('r.triangular(k, 0.0, 0.3, 1.0, (3,))', 'float32', (3,), [1062142095, 1063298840, 1050801880]),
    ('r.geometric(k, 0.3, (4,))', 'int32', (4,), [1, 1, 4, 3]),
    ('r.orthogonal(k, 3)', 'float32', (3, 3), [1064605122, 1050056950, 1020589230, 3174931044, 1047645930, 3212343876, 3197456565, 1064113927, 1047853027]),
    ('r.multivariate_normal(k, jnp.zeros(2), jnp.array([[2., .5], [.5, 1.]]), (3,))', 'float32', (3, 2), [1074978148, 1075705397, 3206347355, 3194505311, 1048510913, 3210270767]),
]


@pytest.mark.parametrize("expr,dtype,shape,want", CLOSE, ids=[c[0].split("(")[0] for c in CLOSE])
def test_more_distributions(expr, dtype, shape, want):
    got = np.asarray(eval(expr))
    assert str(got.dtype) == dtype and got.shape == shape
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got.ravel(), np.array(want, np.uint32).view(np.float32),
                                   rtol=2e-6, atol=1e-6)
    else:
        assert got.ravel().tolist() == want


@pytest.mark.parametrize("call", [
    lambda k: astjax.random.permutation(k, np.ones((2, 3)), axis=2),
    lambda k: astjax.random.categorical(k, np.ones((2, 3)), axis=2),
    lambda k: astjax.random.choice(k, np.ones((2, 3)), (2,), axis=-3),
])
def test_axis_out_of_bounds_raises(call):  # JAX: ValueError (IndexError for categorical)
    with pytest.raises(ValueError, match="out of bounds for array of dimension 2") as e:
        call(astjax.random.PRNGKey(0))
    assert isinstance(e.value, IndexError) and isinstance(e.value, astjax.errors.AstjaxError)
