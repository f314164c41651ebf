"""Regression tests for issue 12's small known defects in operations: complex operands
of ordering ops, float0 operands, a linear primitive without a transpose, repeated axes,
complex histogram edges, jnp names JAX lacks. Each test is the minimal program, checked
against what JAX 0.10.2 does (its class, and where it accepts the program, its answer);
the front end's defects are in tests/test_reliability_defects.py."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors, lax

Z = np.array([1 + 2j, 3 - 1j], np.complex64)


# ------------------------------------------------------------ ordering ops of complex input

@pytest.mark.parametrize("call", [
    lambda z: jnp.argmax(z), lambda z: jnp.argmin(z), lambda z: jnp.nanargmax(z),
    lambda z: jnp.nanargmin(z), lambda z: lax.argmax(z, 0, np.int32),
    lambda z: astjax.jit(jnp.argmax)(z)])
def test_argmax_argmin_of_complex_is_a_type_error(call):
    with pytest.raises(errors.DTypeError) as e:
        call(jnp.asarray(Z))
    assert isinstance(e.value, TypeError) and "complex" in str(e.value)


@pytest.mark.parametrize("call", [
    lambda z: jnp.clip(z, 0, 1), lambda z: jnp.clip(z), lambda z: jnp.clip(z.real, max=1j),
    lambda z: jnp.median(z), lambda z: jnp.quantile(z, 0.5), lambda z: jnp.percentile(z, 50),
    lambda z: jnp.interp(z, z, z), lambda z: lax.top_k(z, 1), lambda z: jnp.nanquantile(z, .5)])
def test_clip_quantile_interp_of_complex_is_a_value_error(call):
    with pytest.raises(errors.AstjaxError) as e:
        call(jnp.asarray(Z))
    assert isinstance(e.value, ValueError) and "complex" in str(e.value)


def test_real_ordering_ops_still_work():
    x = jnp.asarray([3.0, -1.0, 2.0])
    assert int(jnp.argmax(x)) == 0 and int(jnp.argmin(x)) == 1
    np.testing.assert_allclose(jnp.clip(x, 0, 2), [2.0, 0.0, 2.0])
    np.testing.assert_allclose(jnp.interp(jnp.asarray([0.5]), jnp.asarray([0.0, 1.0]),
                                          jnp.asarray([0j, 2j])), [1j])  # complex fp is fine
    np.testing.assert_allclose(astjax.jvp(jnp.max, (jnp.asarray(Z),), (jnp.asarray(Z),))[1],
                               Z[1])  # max of complex (lexicographic) and its jvp stay


# ------------------------------------------------------------------------ float0 operands

def _float0():
    return astjax.grad(lambda x, i: x * 1.0, argnums=(0, 1), allow_int=True)(1.0, 3)[1]


@pytest.mark.parametrize("call", [
    lambda g: jnp.add(g, 1), lambda g: jnp.sin(g), lambda g: jnp.multiply(2.0, g),
    lambda g: astjax.jit(lambda a: a + 1)(g)])
def test_float0_operand_is_a_type_error(call):
    with pytest.raises(errors.ArgumentTypeError, match="float0"):
        call(_float0())


@pytest.mark.parametrize("call", [
    lambda: jnp.promote_types(astjax.dtypes.float0, jnp.float32),
    lambda: jnp.result_type(np.zeros(2, astjax.dtypes.float0), 1.0),
    lambda: jnp.result_type(np.dtype("U3"), np.float32)])
def test_promotion_outside_the_lattice_is_a_value_error(call):
    with pytest.raises(errors.ArgumentValueError, match="not a valid dtype for type promotion"):
        call()


def test_float0_asarray_stays_a_float0_host_array():
    g = jnp.asarray(_float0())
    assert g.dtype == astjax.dtypes.float0 and g.shape == ()
    assert astjax.jit(lambda a: a)(_float0()).dtype == astjax.dtypes.float0


# ------------------------------------------------- a linear primitive without a transpose

def test_missing_transpose_rule_is_a_located_not_implemented_error():
    from astjax.extend.core import Primitive, ShapedArray
    from astjax.interpreters import ad, mlir

    twice_p = Primitive("rel_twice")
    twice_p.def_impl(lambda x: x * 2)
    twice_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    ad.primitive_jvps[twice_p] = lambda p, t: (twice_p.bind(p[0]),
                                               twice_p.bind(ad.instantiate_zeros(t[0])))
    mlir.register_lowering(twice_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))

    def loss(x):
        return jnp.sum(twice_p.bind(x))

    x = jnp.ones(3)
    np.testing.assert_allclose(astjax.jvp(loss, (x,), (x,))[1], 6.0)  # forward mode works
    for fn in (astjax.grad(loss), astjax.jit(astjax.grad(loss))):
        with pytest.raises(errors.DerivativeNotImplementedError) as e:
            fn(x)
        assert isinstance(e.value, NotImplementedError)
        assert "rel_twice" in str(e.value) and "twice_p.bind(x)" in str(e.value)  # located


# ------------------- issue 12 leftovers: repeated axes, complex histogram edges, names

X23 = np.arange(6.0, dtype=np.float32).reshape(2, 3)


@pytest.mark.parametrize("call", [
    lambda x: jnp.sum(x, axis=(0, 0)), lambda x: jnp.max(x, axis=[1, -1]),
    lambda x: jnp.var(x, axis=(0, 0)), lambda x: jnp.add.reduce(x, axis=(0, 0)),
    lambda x: astjax.jit(lambda v: jnp.sum(v, axis=(0, -2)))(x)])
def test_reduction_over_a_repeated_axis_is_jax_value_error(call):
    # JAX: ValueError "duplicate value in 'axis': (0, 0)" (was: "repeated axis in")
    with pytest.raises(ValueError, match=r"duplicate value in 'axis': \((0|1), (0|1|-1|-2)\)"):
        call(X23)


@pytest.mark.parametrize("call", [
    lambda x: jnp.moveaxis(x, (0, 0), (0, 1)), lambda x: jnp.flip(x, axis=(1, -1)),
    lambda x: jnp.tensordot(x, x, axes=((0, 0), (0, 1)))])
def test_shape_ops_with_a_repeated_axis_raise_jax_type_error(call):
    # JAX raises TypeError from lax.transpose / rev / dot_general (was: AxisError, a
    # ValueError)
    with pytest.raises(TypeError):
        call(X23)


def test_gradient_over_a_repeated_axis_as_jax():
    x = (np.arange(12.0).reshape(3, 4) ** 2).astype(np.float32)
    g = jnp.gradient(x, axis=(1, -1))        # JAX: the axis-1 gradient twice
    want = np.gradient(x, axis=1)
    np.testing.assert_allclose(g[0], want)
    np.testing.assert_allclose(g[1], want)


def test_histogram_of_complex_input_with_given_edges_as_jax():
    # JAX casts given edges to the data's inexact type: complex edges for complex data,
    # real edges (the imaginary part dropped) for real data
    z = np.array([1 + 2j, 3 + 0j, 2 - 1j, 0.5 + 0.5j], np.complex64)
    counts, edges = jnp.histogram(z, bins=np.array([0.0, 1.0, 2.0, 3.0], np.float32))
    assert edges.dtype == np.complex64 and counts.dtype == np.complex64
    np.testing.assert_allclose(counts, [1, 2, 1])
    counts, edges = jnp.histogram(z, bins=3)      # JAX's linspace of complex end points
    np.testing.assert_allclose(counts, [2, 1, 1])
    np.testing.assert_allclose(edges[1], (4 / 3) + (1 / 3) * 1j, rtol=1e-6)
    counts, edges = jnp.histogram(z.real, bins=np.array([0, 1 + 1j, 3]))
    assert edges.dtype == np.float32
    np.testing.assert_allclose(counts, [1, 3])


def test_jnp_names_jax_lacks_are_attribute_errors_not_not_implemented(monkeypatch):
    for name, hint in (("fix", "jnp.trunc"), ("real_if_close", "docs/api.md")):
        with pytest.raises(AttributeError, match=f"no attribute '{name}'") as e:
            getattr(jnp, name)
        assert not isinstance(e.value, NotImplementedError) and hint in str(e.value)
        assert not hasattr(jnp, name)
    # every jax.numpy name exists now: a JAX name astjax lacks is checked on one marked
    # not-yet (as tests/test_error_classes.py does)
    monkeypatch.setattr(jnp, "_NOT_YET", frozenset({"float5_e2m2"}))
    with pytest.raises(errors.MissingNameError):
        jnp.float5_e2m2  # noqa: B018


def test_jnp_names_not_yet_implemented_match_jax_names():
    # the names astjax reports as "not implemented" are exactly JAX 0.10.2's jax.numpy
    # names it lacks (docs/jax_names.json)
    import json
    import os
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "jax_names.json")) as f:
        names = json.load(f)["modules"]["jax.numpy"]
    lacking = {n for n in names if not hasattr(jnp, n)}
    assert lacking == jnp._NOT_YET
