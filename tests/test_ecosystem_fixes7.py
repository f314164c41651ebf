"""Regressions found by running distrax (with tfp's JAX substrate) and its own test
suite on astjax (dist19), each checked against what JAX 0.10.2 gives; none needs the
libraries."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import value_tables
from astjax.interpreters import xla
from test_ecosystem_fixes6 import _served   # (a `jax.*` module as install_as_jax serves it)


class _Celsius:
    """A library's own value type, neither an array nor array-like."""

    def __init__(self, v):
        self.v = v


@pytest.fixture
def celsius_registered():
    xla.canonicalize_dtype_handlers[_Celsius] = lambda c: np.asarray(c.v, np.float32)
    value_tables.pytype_aval_mappings[_Celsius] = lambda c: astjax.core.ShapedArray(
        (), np.dtype(np.float32))
    yield
    del value_tables.canonicalize_value_handlers[_Celsius]
    del value_tables.pytype_aval_mappings[_Celsius]


# ---- `import distrax` (tfp's JAX backend, ops.py) raised AttributeError on
# `jax.interpreters.xla.canonicalize_dtype_handlers[np.ndarray]`, then on
# `jax.core.pytype_aval_mappings`. JAX: a type registered in both is a `jit` argument
# and a `device_put` operand, `typeof` gives the registered type.
def test_registered_type_is_a_jit_argument(celsius_registered):
    assert float(astjax.jit(lambda x: x * 2)(_Celsius(3.0))) == 6.0
    assert float(astjax.device_put(_Celsius(4.0))) == 4.0
    assert str(astjax.typeof(_Celsius(3.0))) == "float32[]"


def test_subclass_of_a_registered_type_uses_its_rule(celsius_registered):
    class Kelvin(_Celsius):
        pass
    assert float(astjax.jit(lambda x: x + 1)(Kelvin(1.5))) == 2.5


def test_unregistered_type_is_still_refused():
    with pytest.raises(TypeError):
        astjax.jit(lambda x: x)(_Celsius(1.0))


def test_builtin_entries_read_back_as_jax_gives_them():
    core = _served("jax.core")
    table = core.pytype_aval_mappings
    assert str(table[np.ndarray](np.zeros(3, np.float64))) == "float32[3]"
    assert str(table[int](3)) == "~int32[]" and str(table[float](2.0)) == "~float32[]"
    assert np.float32 in table and astjax.core.Tracer in table
    with pytest.raises(TypeError):
        table[str]("a")
    canon = _served("jax.interpreters.xla").canonicalize_dtype_handlers[np.ndarray]
    assert canon(np.zeros(2)).dtype == np.float32 and canon(3).dtype == np.int32


def test_tfp_style_reuse_of_the_ndarray_entries():
    """What tfp does for its `Variable` (an ndarray proxy): reuse the ndarray entries."""
    class Var(np.ndarray):
        pass
    core = _served("jax.core")
    table = core.pytype_aval_mappings
    xla.canonicalize_dtype_handlers[Var] = xla.canonicalize_dtype_handlers[np.ndarray]
    table[Var] = table[np.ndarray]
    try:
        v = np.arange(3.0).view(Var)
        np.testing.assert_allclose(astjax.jit(jnp.sin)(v), np.sin(np.arange(3.0)), rtol=1e-6)
        assert astjax.jit(lambda x: x)(v).dtype == np.float32
    finally:
        del value_tables.canonicalize_value_handlers[Var]
        del table[Var]


# ---- tfp's JAX substrate caches per operand through weak references (cache_util's
# `HashableWeakRef`; so every distrax bijector call): "cannot create weak reference to
# 'Array' object". JAX's arrays, typed keys and tracers are weakly referable.
def test_arrays_keys_and_staged_values_are_weakly_referable():
    import weakref
    x, k = jnp.ones(2), astjax.random.key(0)
    assert weakref.ref(x)() is x and weakref.ref(k)() is k

    def f(v):
        assert weakref.ref(v)() is v
        return v * 2
    assert float(astjax.jit(f)(1.0)) == 2.0


# ---- distrax's jaxpr inverter (`utils/transformations.py`, every Lambda / Block
# bijector's inverse) reads `eqn.primitive.call_primitive`: AttributeError. JAX's
# primitives carry it (True for `call` / `closed_call`) and `map_primitive`.
def test_primitives_carry_call_and_map_flags():
    from astjax.extend.core import primitives
    assert primitives.closed_call_p.call_primitive is True
    assert astjax.lax.add_p.call_primitive is False and astjax.lax.add_p.map_primitive is False


# ---- distrax `Normal.sample` (`jnp.expand_dims(x, range(0, n))`): "axis must be an
# integer". JAX takes any sequence of ints as axes: a `range`, a NumPy integer array.
@pytest.mark.parametrize("axis", [range(0, 2), np.array([0, 1]), jnp.array([0, 1])])
def test_axis_as_range_or_integer_array(axis):
    x = jnp.ones((2, 3))
    assert jnp.expand_dims(x, axis).shape == (1, 1, 2, 3)
    assert float(jnp.sum(x, axis=axis)) == 6.0
    assert jnp.std(x, axis=axis).shape == ()
    assert jnp.squeeze(jnp.ones((1, 1, 3)), axis=axis).shape == (3,)


def test_range_axis_in_mean_max_and_softmax():
    x = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(jnp.mean(x, axis=range(1, 2)), [1.0, 4.0])
    np.testing.assert_allclose(jnp.max(x, axis=range(1, 2)), [2.0, 5.0])
    assert astjax.nn.softmax(x, axis=range(1, 2)).shape == (2, 3)


# ---- tfp's `ones` / `zeros` (every distrax Block / MaskedCoupling log-det) pass the
# shape as a NumPy integer array: "shape must be a tuple of ints" (creation), "only
# integer scalar arrays can be converted to a scalar index" (reshape, broadcast_to).
# JAX's shapes are any 1-D sequence of integers; a 0-d array is one dimension.
_SHAPES = [np.array([5, 6], np.int32), np.array([5, 6], np.int64), jnp.array([5, 6])]


@pytest.mark.parametrize("shape", _SHAPES)
def test_integer_array_as_shape(shape):
    key = astjax.random.key(0)
    made = [jnp.zeros(shape), jnp.ones(shape), jnp.full(shape, 2.0), jnp.empty(shape),
            jnp.broadcast_to(1.0, shape), jnp.reshape(jnp.arange(30), shape),
            jnp.arange(30).reshape(shape), jnp.zeros_like(jnp.ones(3), shape=shape),
            jnp.full_like(jnp.ones(3), 1.0, shape=shape), astjax.lax.full(shape, 1.0),
            astjax.random.normal(key, shape), astjax.random.uniform(key, shape)]
    assert [a.shape for a in made] == [(5, 6)] * len(made)
    assert jnp.zeros(np.array(3)).shape == (3,)
    assert jnp.arange(6).reshape(np.int32(6)).shape == (6,)


@pytest.mark.parametrize("shape", [np.array([2.0, 3.0]), np.array([[2, 3]])])
def test_non_integer_or_2d_array_shape_is_a_type_error(shape):
    with pytest.raises(TypeError):
        jnp.zeros(shape)


def test_staged_array_shape_is_a_concretization_error():
    with pytest.raises(astjax.errors.ConcretizationTypeError):
        astjax.jit(jnp.zeros)(jnp.array([2, 3]))


# ---- tfp's `Sample` (distrax MultivariateNormalFromBijector, Transformed): "Argument
# `sample_shape` must be integer type; saw int32" -- `np.int32 in {jnp.int32, ...}` was
# False. JAX's scalar types hash as NumPy's scalar type.
def test_scalar_types_hash_as_numpys_scalar_type():
    assert np.int32 in {jnp.int32, jnp.int64} and np.float32 in {jnp.float32}
    assert hash(jnp.bfloat16) == hash(jnp.bfloat16.dtype.type)


# ---- tfp's `stateless_uniform` (every distrax Bernoulli sample) reads
# `jnp.shape(minval)` with minval None: astjax raised "NoneType is not a valid array
# value". JAX: an operand that is not array-like warns and gets NumPy's answer.
@pytest.mark.parametrize("fn, value, expected", [
    (jnp.shape, None, ()), (jnp.shape, [[1, 2, 3]], (1, 3)), (jnp.ndim, None, 0),
    (jnp.ndim, [1, 2], 1), (jnp.size, None, 1), (jnp.size, [[1, 2]], 2)])
def test_shape_ndim_size_of_a_non_array_warn_and_answer_as_numpy(fn, value, expected):
    with pytest.warns(DeprecationWarning, match="requires ndarray or scalar arguments"):
        assert fn(value) == expected


def test_shape_ndim_size_of_arrays_do_not_warn():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jnp.shape(jnp.ones((2, 3))) == (2, 3) and jnp.shape(2.5) == ()
        assert jnp.ndim(np.ones((2, 3))) == 2 and jnp.size(np.ones((2, 3)), axis=1) == 3
        assert astjax.jit(lambda x: jnp.zeros(jnp.shape(x)))(jnp.ones(3)).shape == (3,)
