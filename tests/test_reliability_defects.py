"""Regression tests for issue 12's small known defects and the long fuzz run's findings:
each test is the minimal program, checked against what JAX 0.10.2 does (its class, and
where it accepts the program, its answer)."""
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
    lambda z: jnp.interp(z, z, z)])
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
