"""Differences found by running JAX's documentation notebooks under astjax
(`tests/notebooks/run.py`, issue 13), each pinned against JAX 0.10.2's behaviour."""
import pytest

import astjax
from astjax.extend.core import Primitive
from astjax.interpreters import mlir


def test_register_lowering_returns_none_as_jax():
    # jax-primitives: a cell ending in `mlir.register_lowering(...)` displays nothing
    # under JAX (its register_lowering returns None); astjax displayed the rule.
    p = Primitive("nb_fixes_noop")
    assert mlir.register_lowering(p, lambda ctx, x: [x], platform="cpu") is None
    assert mlir.register_lowering(p, lambda ctx, x: [x]) is None


def test_lax_has_no_zeros_like_array():
    # JAX 0.10.2's jax.lax has no zeros_like_array (removed upstream); the
    # jax-primitives notebook's JVP rule calls it and JAX raises AttributeError there
    # (a raises-exception cell), where astjax ran the rule.
    assert not hasattr(astjax.lax, "zeros_like_array")
    with pytest.raises(AttributeError):
        astjax.lax.zeros_like_array(1.0)


def test_cotangent_through_real_and_imag_is_not_weak():
    # autodiff_cookbook: grad of |z|^2 at a Python complex is complex64 in JAX, not
    # weakly typed (the transposes of real/imag pair the cotangent with a strong zero).
    import astjax.numpy as jnp

    def sq_abs(z):
        x, y = jnp.real(z), jnp.imag(z)
        return x ** 2 + y ** 2

    g = astjax.grad(sq_abs)(3. + 4j)
    assert (complex(g), str(g.dtype), g.weak_type) == (6 - 8j, "complex64", False)
    g = astjax.grad(lambda z: jnp.imag(z))(3. + 4j)
    assert (complex(g), g.weak_type) == (-1j, False)
    _, f_vjp = astjax.vjp(lambda z: jnp.real(z) ** 2 + 1j * jnp.imag(z), 3. + 4j)
    (ct,) = f_vjp(1. + 0j)
    assert (complex(ct), ct.weak_type) == (6 + 0j, False)


@pytest.mark.parametrize("make", ["array", "asarray"])
def test_array_of_a_list_of_weak_staged_values_is_strong(make):
    # Common_Gotchas (`make_jaxpr(lambda x: jnp.sum(jnp.array(x)))` of a list of ints):
    # JAX's jnp.array of a *list* is never weakly typed, even when every element is a
    # weak staged value, so `jnp.array([a, b]) + jnp.int8(1)` is int32 under jit, as
    # eagerly; astjax kept the list's weak type and promoted to int8 (silently).
    import astjax.numpy as jnp
    mk = getattr(jnp, make)
    f = astjax.jit(lambda a, b: mk([a, b]) + jnp.int8(1))
    assert str(f(1, 2).dtype) == str((mk([1, 2]) + jnp.int8(1)).dtype) == "int32"
    g = astjax.jit(lambda a, b: mk([[a], [b]]) * jnp.float16(1))
    assert str(g(1., 2.).dtype) == "float32"
    out = astjax.jit(lambda a: mk([a, a]))(3)
    assert (str(out.dtype), out.weak_type) == ("int32", False)
    # a staged scalar on its own keeps its weak type (JAX: only a weak object is weak)
    assert astjax.jit(lambda a: mk(a) + jnp.int8(1))(1).dtype == "int8"
    # strong elements keep their dtype
    h = astjax.jit(lambda a: mk([a, 1.0]))
    assert str(h(jnp.float16(2)).dtype) == "float16"


def test_diag_of_a_weak_vector_stays_weak():
    # Found by a weak-type sweep next to the jnp.array fix: JAX's jnp.diag keeps the
    # weak type of its vector (`jnp.diag(jnp.stack([a, b])) + jnp.int8(1)` is int8
    # for Python-scalar a, b), astjax's diagonal mask made it strong (int32).
    import astjax.numpy as jnp
    f = astjax.jit(lambda a, b: jnp.diag(jnp.stack([a, b])) + jnp.int8(1))
    assert str(f(1, 2).dtype) == "int8"
    d = jnp.diag(jnp.stack([jnp.asarray(1.), jnp.asarray(2.)]), k=1)
    assert (str(d.dtype), d.weak_type, d.tolist()) == ("float32", True, [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    assert jnp.diag(jnp.ones(2, jnp.int8)).weak_type is False


@pytest.mark.parametrize("out", ["scalar", "vector"])
def test_grad_through_a_callback_raises_jaxs_value_error_first(out):
    # external_callbacks cells 7, 14, 24 (raises-exception): `jax.grad(f)(x)` of a
    # vector-valued f calling pure_callback / io_callback raises JAX's ValueError from
    # the callback's JVP rule (JAX differentiates before checking the output is a
    # scalar); astjax raised its non-scalar-output TypeError, and a plain
    # DifferentiationError (no ValueError) for a scalar output.
    import numpy as np
    import astjax.numpy as jnp
    from astjax.callbacks_api import io_callback
    shape = () if out == "scalar" else (3,)

    def pure(x):
        y = jnp.ones(shape) * x
        return astjax.pure_callback(lambda v: np.sin(v).astype(v.dtype),
                                    astjax.ShapeDtypeStruct(shape, y.dtype), y)

    def io(x):
        return io_callback(lambda v: v, astjax.ShapeDtypeStruct(shape, jnp.float32),
                           jnp.ones(shape) * x)

    with pytest.raises(ValueError, match="Pure callbacks do not support JVP. Please use "):
        astjax.grad(pure)(1.0)
    with pytest.raises(ValueError, match="IO callbacks do not support JVP."):
        astjax.jit(astjax.grad(io))(1.0)
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output"):
        astjax.grad(lambda x: jnp.ones(3) * x)(1.0)
    with pytest.raises(TypeError, match="Output was"):
        astjax.grad(lambda x: ())(1.0)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_convolve_of_integers_is_inexact_and_honours_preferred_element_type(name):
    # key-concepts' `jnp.convolve(x, y)` led to a sweep: JAX promotes the operands of
    # jnp.convolve / correlate to an inexact dtype (int and bool inputs give float32)
    # and computes in `preferred_element_type` when given; astjax kept int32 / int8 /
    # bool and ignored preferred_element_type.
    import astjax.numpy as jnp
    f = getattr(jnp, name)
    i8 = jnp.arange(3, dtype=jnp.int8) * 50
    assert str(f(jnp.arange(3), jnp.arange(3)).dtype) == "float32"
    assert str(f(jnp.array([True, False]), jnp.array([True, True])).dtype) == "float32"
    out = f(i8, i8, mode="full", preferred_element_type=jnp.int32)
    import numpy as np
    ref = getattr(np, name)(np.arange(3) * 50, np.arange(3) * 50, mode="full")  # (no wrap)
    assert str(out.dtype) == "int32" and out.tolist() == ref.tolist()
    g = astjax.jit(lambda a, b: f(a, b, mode="same", preferred_element_type=jnp.float32))
    assert str(g(i8, i8).dtype) == "float32"
    with pytest.raises(TypeError, match="incompatible with `preferred_element_type`"):
        f(jnp.arange(3.), jnp.arange(2), preferred_element_type=jnp.int32)


def test_dynamic_update_slice_is_weak_only_when_every_operand_is():
    # Weak-type sweep: JAX's dynamic_update_slice follows the standard rule (weak only
    # when operand, update and start indices all are; lax.dynamic_update_slice makes
    # the indices int32, so in practice never); astjax copied the operand's weak type,
    # so `dus(broadcast_to(2., (3,)), ...) + jnp.float16(1)` was float16, not float32.
    import astjax.numpy as jnp
    from astjax import lax
    w = lambda a, n: jnp.broadcast_to(a, (n,))
    f = astjax.jit(lambda a, i: lax.dynamic_update_slice(w(a, 3), w(a, 1), (i,))
                   + jnp.float16(1))
    assert str(f(2., 1).dtype) == "float32"
    g = lambda a: lax.dynamic_update_slice_in_dim(w(a, 3), w(a, 1), 1, 0)
    assert g(2.).weak_type is False and astjax.jit(g)(2.).weak_type is False
    assert w(2., 3).at[1].set(5.).weak_type is True   # (scatter keeps the operand's)


def test_ldexp_result_is_strong_under_jit_as_eagerly():
    # Weak-type sweep: JAX's ldexp converts the exponent to the mantissa's dtype (a
    # strong value), so the result is never weak; astjax kept a Python-int exponent
    # as a float under jit only, so `jit(lambda a: jnp.ldexp(a, 2))(2.)` was weak
    # (and `... + jnp.float16(1)` float16) while eagerly it was float32.
    import astjax.numpy as jnp
    f = lambda a: jnp.ldexp(a, 2)
    out = astjax.jit(f)(2.)
    assert (float(out), out.weak_type) == (8.0, False) and f(2.).weak_type is False
    assert str(astjax.jit(lambda a: jnp.ldexp(a, 2) + jnp.float16(1))(2.).dtype) == "float32"


def test_polyval_is_strong_and_polyder_inexact_as_jax():
    # Sweep after the convolve fix: JAX's polyval starts from a strong zero (so
    # `polyval(weak p, 2.) + jnp.float16(1)` is float32), and polyder promotes to an
    # inexact dtype (int coefficients give float32) and refuses a negative order.
    import astjax.numpy as jnp
    p = jnp.stack([jnp.asarray(1.), jnp.asarray(2.)])
    assert str(astjax.jit(lambda p: jnp.polyval(p, 2.) + jnp.float16(1))(p).dtype) == "float32"
    d = jnp.polyder(jnp.array([1, 2, 3]))
    assert (str(d.dtype), d.tolist()) == ("float32", [2.0, 2.0])
    assert str(jnp.polymul(jnp.array([1, 2, 3]), jnp.array([4, 5])).dtype) == "float32"
    with pytest.raises(ValueError, match="Order of derivative must be positive"):
        jnp.polyder(jnp.array([1., 2.]), -1)
