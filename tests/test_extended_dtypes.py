"""User extended dtypes (JAX's `ExtendedDType` with `_rules`, as flax's fp8 `fm32`):
arrays of one, `convert_element_type` / `astype` to and from it, `jit` / `vmap` of
them, and `grad` accumulating their cotangents by the dtype's `add` rule (here `max`)
from its `zero` (here -inf). The expected values are JAX 0.10.2's (real `jax` with the
same dtype and functions), stored as literals."""
import dataclasses

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.dtypes import ExtendedDType, extended
from astjax.ir import ShapedArray


class MaxRules:
    """A float32-backed dtype whose cotangents combine by max (flax's Fp8MetaTyRules)."""

    @staticmethod
    def physical_element_aval(dt):
        return ShapedArray((), np.dtype("float32"))

    @staticmethod
    def convert_from(dt, other):
        return other == np.dtype("float32")

    @staticmethod
    def convert_to(other, dt):
        return other == np.dtype("float32")

    @staticmethod
    def add(dt, x, y):
        f32 = lambda v: lax.convert_element_type(v, jnp.float32)  # noqa: E731
        return lax.convert_element_type(lax.max(f32(x), f32(y)), dt)

    @staticmethod
    def zero(dt):
        return lax.convert_element_type(np.array(-np.inf, np.float32), dt)

    @staticmethod
    def tangent_dtype(dt):
        return dt

    @staticmethod
    def full(shape, fill_value, dt):
        fill = lax.convert_element_type(fill_value, jnp.float32)
        return lax.convert_element_type(lax.full(shape, fill, jnp.float32), dt)


class maxgrad(extended):
    pass


@dataclasses.dataclass(frozen=True)
class MaxDType(ExtendedDType):
    _rules: type = MaxRules
    type: type = maxgrad
    name: str = "maxf32"


mx = MaxDType()


@astjax.custom_vjp
def probe(v, m):
    """`v`; its bwd gives `m` the cotangent |v| (of dtype mx)."""
    return v


def _probe_fwd(v, m):
    return v, lax.convert_element_type(jnp.abs(v) * 1.0, mx)


def _probe_bwd(res, g):
    return g, res


probe.defvjp(_probe_fwd, _probe_bwd)


@astjax.custom_vjp
def drop(v, m):
    """`v`; its bwd gives `m` no cotangent (None: a zero of dtype mx)."""
    return v


drop.defvjp(lambda v, m: (v, None), lambda res, g: (g, None))

X = np.array([1., -2., 3.], np.float32)
W = np.zeros(3, np.float32)


def _twice(x, w):
    m = lax.convert_element_type(w, mx)
    return jnp.sum(probe(x, m) + probe(x * 3.0, m))


def _scan_of(fn):
    def g(x, w):
        m = lax.convert_element_type(w, mx)

        def body(c, i):
            return fn(c * i, m), None
        c, _ = lax.scan(body, x, jnp.arange(1., 4.))
        return jnp.sum(c)
    return g


def test_cotangents_of_two_uses_combine_by_the_rule():
    # max(|x|, |3x|), not their sum [4, 8, 12]
    dx, dw = astjax.jit(astjax.grad(_twice, (0, 1)))(X, W)
    np.testing.assert_array_equal(dx, [4., 4., 4.])
    np.testing.assert_array_equal(dw, [3., 6., 9.])


def test_vmap_of_grad():
    dx, dw = astjax.jit(astjax.vmap(astjax.grad(_twice, (0, 1))))(np.stack([X, 2 * X]),
                                                                   np.stack([W, W]))
    np.testing.assert_array_equal(dx, [[4., 4., 4.], [4., 4., 4.]])
    np.testing.assert_array_equal(dw, [[3., 6., 9.], [6., 12., 18.]])


def test_scan_accumulates_a_closed_over_value_by_the_rule():
    # the residual |c * i| of the three steps maxed: |6x|
    for f in (astjax.grad(_scan_of(probe), (0, 1)), astjax.jit(astjax.grad(_scan_of(probe), (0, 1)))):
        dx, dw = f(X, W)
        np.testing.assert_array_equal(dx, [6., 6., 6.])
        np.testing.assert_array_equal(dw, [6., 12., 18.])


def test_zero_cotangent_is_the_rules_zero():
    # no step gives `m` a cotangent: the accumulator stays at the rule's zero, -inf
    dx, dw = astjax.jit(astjax.grad(_scan_of(drop), (0, 1)))(X, W)
    np.testing.assert_array_equal(dx, [6., 6., 6.])
    np.testing.assert_array_equal(dw, [-np.inf, -np.inf, -np.inf])


def test_while_loop_accumulates_by_the_rule():
    # (JAX refuses reverse mode through while_loop; astjax's: the max over the steps
    # of |2 v| for v = 2x, 4x: 8|x|)
    def g(x, w):
        m = lax.convert_element_type(w, mx)
        _, v = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, probe(c[1] * 2.0, m)),
                              (0, x))
        return jnp.sum(v)
    dx, dw = astjax.jit(astjax.grad(g, (0, 1)))(X, W)
    np.testing.assert_array_equal(dx, [8., 8., 8.])
    np.testing.assert_array_equal(dw, [8., 16., 24.])


def test_from_edtype_transposes_to_to_edtype():
    # (JAX 0.10.2's from_edtype transpose reads `.dtype` of an UndefinedPrimal and
    # raises AttributeError; the derivative of a round trip is the identity's)
    def g(w):
        m = lax.convert_element_type(w, mx)
        return jnp.sum(lax.convert_element_type(m, jnp.float32) * 2.0)
    np.testing.assert_array_equal(astjax.jit(astjax.grad(g))(X), [2., 2., 2.])


def test_arrays_of_the_dtype():
    e = lax.convert_element_type(X, mx)
    assert (e.dtype, e.shape, e.ndim) == (mx, (3,), 1)
    assert isinstance(e, astjax.Array)
    assert str(astjax.typeof(e)) == "maxf32[3]"
    assert repr(e) == "EArray([ 1., -2.,  3.], dtype=float32)"
    np.testing.assert_array_equal(lax.convert_element_type(e, jnp.float32), X)
    assert jnp.asarray(X).astype(mx).dtype == mx
    j = astjax.jit(lambda v: lax.convert_element_type(v, mx))(X)
    assert (type(j).__name__, j.dtype, j.shape) == ("EArray", mx, (3,))
    np.testing.assert_array_equal(astjax.jit(lambda e: lax.convert_element_type(e, jnp.float32) + 1)(j),
                                  [2., -1., 4.])
    np.testing.assert_array_equal(astjax.vmap(lambda e: lax.convert_element_type(e, jnp.float32))(e), X)
    s = astjax.eval_shape(lambda v: lax.convert_element_type(v, mx), X)
    assert (s.shape, s.dtype) == ((3,), mx)


def test_jaxpr_types_the_data_as_the_dtype():
    text = str(astjax.make_jaxpr(lambda v: lax.convert_element_type(v, mx))(X))
    assert "b:maxf32[3] = to_edtype" in text


def test_conversions_outside_the_representation_are_jaxs_errors():
    with pytest.raises(ValueError, match="Cannot convert_element_type from int32 to maxf32"):
        lax.convert_element_type(jnp.arange(3), mx)
    e = lax.convert_element_type(X, mx)
    with pytest.raises(ValueError, match="Cannot convert_element_type from maxf32 to int32"):
        lax.convert_element_type(e, jnp.int32)
    with pytest.raises(TypeError):
        e + e


def test_result_handlers_build_earrays_as_flax_does():
    # flax's fp8 rules (`global_sharded_result_handler`) wrap the physical result of
    # `pxla.global_result_handlers[ShapedArray]` in `earray.EArray(aval, data)`; with
    # both modules importable its `CAN_USE_EARRAY` is True, as under JAX
    from astjax.compat._src import earray
    from astjax.compat._src.interpreters import pxla
    e = lax.convert_element_type(X, mx)
    phys = pxla.global_result_handlers[ShapedArray](ShapedArray((3,), np.float32), None, True)
    data = phys([jnp.asarray(X)._buf])
    out = earray.EArray(astjax.typeof(e), data)
    assert (out.dtype, out.shape) == (mx, (3,))
    np.testing.assert_array_equal(lax.convert_element_type(out, jnp.float32), X)


def test_structure_of_arrays_of_the_dtype():
    e = lax.convert_element_type(X, mx)
    f32 = lambda v: np.asarray(lax.convert_element_type(v, jnp.float32))  # noqa: E731
    c = astjax.jit(lambda p, e: lax.cond(p, lambda: e, lambda: e))(True, e)
    assert c.dtype == mx
    np.testing.assert_array_equal(f32(c), X)
    s = astjax.jit(lambda e: e[1:])(e)
    assert (s.dtype, s.shape) == (mx, (2,))
    np.testing.assert_array_equal(f32(s), [-2., 3.])
    full = lax.full((2,), 1.0, mx)   # the rules' `full`
    assert (full.dtype, full.shape) == (mx, (2,))
    np.testing.assert_array_equal(f32(full), [1., 1.])
    z = jnp.zeros_like(e)
    assert (z.dtype, z.shape) == (mx, (3,))
    np.testing.assert_array_equal(f32(z), [0., 0., 0.])
    assert jnp.asarray(e).dtype == mx and jnp.array(e).dtype == mx
    assert len(astjax.tree_util.tree_leaves(e)) == 1


def test_arrays_of_the_dtype_have_no_values_to_compare():
    # JAX's NotImplementedError (the identity comparison would be a silent True)
    e = lax.convert_element_type(X, mx)
    for op in (lambda: e == e, lambda: e != e, lambda: bool(e), lambda: list(e)):
        with pytest.raises(NotImplementedError):
            op()
