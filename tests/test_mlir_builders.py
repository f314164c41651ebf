"""Lowering rules written with jaxlib's MLIR op builders, as JAX's users write them
(`from jax._src.lib.mlir.dialects import hlo`, `hlo.AddOp(...)`, `mlir.ir` types),
registered with `mlir.register_lowering` and run under `jit` (codegen/mlir_builders.py):
the jax-primitives notebook's `multiply_add`, a rule with several results, and a
LAPACK custom call built with `hlo.CustomCallOp`."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat._src.lib.mlir import ir
from astjax.compat._src.lib.mlir.dialects import hlo
from astjax.core import ShapedArray
from astjax.extend.core import Primitive
from astjax.interpreters import mlir

# --- the notebook's primitive: x * y + z, lowered with hlo.MulOp / hlo.AddOp
multiply_add_p = Primitive("test_builders_multiply_add")
multiply_add_p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
multiply_add_p.def_abstract_eval(lambda x, y, z: ShapedArray(x.shape, x.dtype))


def _multiply_add_lowering(ctx, xc, yc, zc):
    return [hlo.AddOp(hlo.MulOp(xc, yc), zc).result]


mlir.register_lowering(multiply_add_p, _multiply_add_lowering, platform="cpu")


def _square_add(a, b):
    return multiply_add_p.bind(a, a, b)


def test_notebook_multiply_add():
    assert astjax.jit(_square_add)(2.0, 10.0) == 14.0
    assert astjax.jit(_square_add, static_argnums=1)(2.0, 10.0) == 14.0
    x = jnp.arange(4.0)
    np.testing.assert_allclose(astjax.jit(_square_add)(x, x), x * x + x)
    text = astjax.jit(_square_add).lower(2.0, 10.0).as_text()
    assert "func.func private @astjax_rule_0_test_builders_multiply_add" in text
    assert "stablehlo.multiply" in text and "call @astjax_rule_0" in text


def test_used_twice_and_inside_control_flow():
    def f(x):
        y = _square_add(x, 1.0)
        for _ in range(3):
            y = _square_add(y, x)
        return y
    x = np.float32(0.5)
    want = x * x + 1.0
    for _ in range(3):
        want = want * want + x
    np.testing.assert_allclose(astjax.jit(f)(x), want, rtol=1e-6)


# --- several results, with the helpers' types and constants
sum_prod_p = Primitive("test_builders_sum_prod")
sum_prod_p.multiple_results = True
sum_prod_p.def_impl(lambda x, y: [x + y, x * y * 2])
sum_prod_p.def_abstract_eval(lambda x, y: [ShapedArray(x.shape, x.dtype)] * 2)


def _sum_prod_lowering(ctx, x, y):
    assert [a.shape for a in ctx.avals_in] == [(3,), (3,)]
    two = hlo.BroadcastInDimOp(mlir.aval_to_ir_type(ctx.avals_out[1]),
                               mlir.ir_constant(np.float32(2.0)),
                               ir.DenseI64ArrayAttr.get([])).result
    return [hlo.AddOp(x, y).result, hlo.MulOp(hlo.MulOp(x, y), two).result]


mlir.register_lowering(sum_prod_p, _sum_prod_lowering)


def test_multiple_results():
    x, y = jnp.array([1.0, 2.0, 3.0]), jnp.array([4.0, 5.0, 6.0])
    s, p = astjax.jit(lambda a, b: sum_prod_p.bind(a, b))(x, y)
    np.testing.assert_allclose(s, [5.0, 7.0, 9.0])
    np.testing.assert_allclose(p, [8.0, 20.0, 36.0])


# --- a custom call: LAPACK's Cholesky factorization, as jaxlib registers it
potrf_p = Primitive("test_builders_potrf")
potrf_p.multiple_results = True
potrf_p.def_abstract_eval(lambda a: [ShapedArray(a.shape, a.dtype),
                                     ShapedArray((), np.int32)])


def _potrf_lowering(ctx, a):
    col_major = ir.DenseIntElementsAttr.get(np.array([0, 1], np.int64), type=ir.IndexType.get())
    scalar = ir.DenseIntElementsAttr.get(np.array([], np.int64), type=ir.IndexType.get())
    op = hlo.CustomCallOp(
        [mlir.aval_to_ir_type(av) for av in ctx.avals_out], [a],
        call_target_name=ir.StringAttr.get("lapack_spotrf_ffi"),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=ir.DictAttr.get(
            {"uplo": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord("L"))}),
        operand_layouts=ir.ArrayAttr.get([col_major]),
        result_layouts=ir.ArrayAttr.get([col_major, scalar]))
    return op.results


mlir.register_lowering(potrf_p, _potrf_lowering, platform="cpu")


def test_custom_call():
    from astjax.primitives.lapack import register_targets
    register_targets()   # jaxlib's LAPACK targets (astjax registers them on first use)
    a = np.array([[4.0, 2.0], [2.0, 3.0]], np.float32)
    factor, info = astjax.jit(lambda m: potrf_p.bind(m))(a)
    assert int(info) == 0
    np.testing.assert_allclose(np.tril(np.asarray(factor)), np.linalg.cholesky(a), rtol=1e-6)


def test_wrong_result_count_is_an_error():
    bad_p = Primitive("test_builders_bad")
    bad_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(bad_p, lambda ctx, x: [x, x])
    with pytest.raises(ValueError, match="returned 2 values for 1 results"):
        astjax.jit(lambda v: bad_p.bind(v))(1.0)


def test_jax_names_serve_jaxlib_bindings():
    import jaxlib.mlir.dialects.stablehlo as stablehlo
    import jaxlib.mlir.ir as jaxlib_ir
    assert hlo is stablehlo and ir is jaxlib_ir and mlir.ir is jaxlib_ir
