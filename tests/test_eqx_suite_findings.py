"""Regressions found by running lineax's, optimistix's and diffrax's own test suites
(their repositories' `tests/` / `test/`) on astjax (eqx20), each reduced to astjax calls
and checked against what JAX 0.10.2 gives; none needs the libraries."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.compat.custom_derivatives import SymbolicZero
from astjax.extend.core import Primitive
from astjax.interpreters import ad, batching, mlir

# (the rules below record what they see while staging)
pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")


# ---- lineax's `test_grad_vmap_symbolic_cotangent` (grad of a vmapped linear solve):
# equinox's batched primitives JVP themselves as `vmap(jvp, in_axes=(axes, tangent
# axes))(primals, tangents)`, an unmapped tangent left a symbolic `Zero`. astjax's vmap
# took the Zero (it has an `aval`) for an array and staged it: lineax's rule saw a
# nonzero tangent on its stop_gradient'ed state and asserted. JAX hands such a leaf (a
# Zero, an UndefinedPrimal: a childless pytree node there; a SymbolicZero: a leaf) to the
# function as an object of its class, of the same aval.
@pytest.mark.parametrize("make", [ad.Zero, ad.UndefinedPrimal, SymbolicZero])
def test_vmap_passes_an_unmapped_ad_placeholder_through(make):
    placeholder = make(astjax.core.ShapedArray((2, 2), jnp.float32))
    seen = []

    def f(x, t):
        seen.append(t[0])
        return x * 2

    out = astjax.vmap(f, in_axes=(0, (None,)))(jnp.ones(3), (placeholder,))
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0, np.float32))
    assert type(seen[0]) is make
    assert seen[0].aval.shape == (2, 2) and seen[0].aval.dtype == np.float32


def _primitive_with_rules():
    """`p(a, b) = a @ b` with a JVP rule that reports whether `a`'s tangent is symbolic
    and a batching rule that re-binds `p` inside `vmap(..., in_axes=(None, axis))`, the
    way equinox's `filter_primitive_*` rules do."""
    p = Primitive("eqx20_matvec")
    impl = lambda a, b: a @ b
    p.def_impl(impl)
    p.def_abstract_eval(lambda a, b: astjax.core.ShapedArray(b.shape, b.dtype))
    mlir.register_lowering(p, mlir.lower_fun(impl, multiple_results=False))
    zero_tangent = []

    def jvp(primals, tangents):
        zero_tangent.append(type(tangents[0]) is ad.Zero)
        return p.bind(*primals), p.bind(primals[0], ad.instantiate_zeros(tangents[1]))

    def jvp_batched(primals, tangents, axes):
        axes_t = tuple(None if type(t) is ad.Zero else d for t, d in zip(tangents, axes))
        return astjax.vmap(jvp, in_axes=(axes, axes_t))(primals, tangents)

    q = Primitive("eqx20_matvec_batched")
    q.def_abstract_eval(lambda a, b, *, axes: astjax.core.ShapedArray(b.shape, b.dtype))
    q_impl = lambda a, b, *, axes: astjax.vmap(impl, in_axes=axes)(a, b)
    q.def_impl(q_impl)
    mlir.register_lowering(q, mlir.lower_fun(q_impl, multiple_results=False))
    ad.primitive_jvps[q] = lambda primals, tangents, *, axes: (
        q.bind(*primals, axes=axes), jvp_batched(primals, tangents, axes)[1])
    batching.primitive_batchers[p] = lambda args, dims: (q.bind(*args, axes=tuple(dims)), 0)
    ad.primitive_jvps[p] = jvp
    return p, zero_tangent


def test_jvp_of_vmap_keeps_a_stop_gradient_operand_symbolic():
    p, zero_tangent = _primitive_with_rules()

    def inner(x):
        return p.bind(lax.stop_gradient(jnp.eye(2) * 2.0), x)

    x = jnp.arange(6.0).reshape(3, 2)
    out, t_out = astjax.jvp(astjax.vmap(inner), (x,), (x,))
    np.testing.assert_array_equal(np.asarray(out), 2 * np.asarray(x))
    np.testing.assert_array_equal(np.asarray(t_out), 2 * np.asarray(x))
    assert zero_tangent and all(zero_tangent)


# ---- Behind it: equinox's JVP rules give an integer output (lineax's result code) the
# tangent `np.zeros(shape, float0)`, a constant of the staged rule; inside a nested jit
# the constant was lowered with no element type for float0 (KeyError). JAX lowers a
# float0 value as booleans (all false).
def test_a_float0_constant_inside_a_nested_jit_lowers():
    f0 = np.zeros((2,), dtype=astjax.dtypes.float0)

    @astjax.jit
    def g(x):
        return astjax.jit(lambda x: (x * 2, f0))(x)

    a, b = g(jnp.ones(2))
    np.testing.assert_array_equal(np.asarray(a), [2.0, 2.0])
    assert b.dtype == astjax.dtypes.float0 and b.shape == (2,)


# ---- diffrax's `test_vmap_y0` (vmap of diffeqsolve, x64): the batch rules of
# dynamic_slice / dynamic_update_slice with unbatched int64 indices put an int32 zero
# first for the batch axis, and the primitive refused indices of two types (DTypeError).
# JAX: the batched slice of every row.
@pytest.mark.parametrize("in_axis", [0, 1])
def test_vmap_of_dynamic_slices_with_int64_indices(in_axis):
    with astjax.enable_x64(True):
        x = jnp.zeros((3, 4)) + jnp.arange(4.0)
        i = jnp.int64(1)
        xs = x if in_axis == 0 else x.T
        upd = astjax.vmap(lambda r: lax.dynamic_update_slice(r, jnp.full(2, 9.0), (i,)),
                          in_axes=in_axis, out_axes=in_axis)(xs)
        sl = astjax.vmap(lambda r: lax.dynamic_slice(r, (i,), (2,)),
                         in_axes=in_axis)(xs)
    expect_upd = np.tile([0.0, 9.0, 9.0, 3.0], (3, 1))
    np.testing.assert_array_equal(np.asarray(upd), expect_upd if in_axis == 0 else expect_upd.T)
    np.testing.assert_array_equal(np.asarray(sl), np.tile([1.0, 2.0], (3, 1)))
