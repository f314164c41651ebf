"""Lowering rules written with jaxlib's MLIR op builders, as JAX's users write them
(`from jax._src.lib.mlir.dialects import hlo`, `hlo.AddOp(...)`, `mlir.ir` types),
registered with `mlir.register_lowering` and run under `jit` (codegen/mlir_builders.py):
the jax-primitives notebook's `multiply_add`, a rule with several results, and a
LAPACK custom call built with `hlo.CustomCallOp`; then rules in jax 0.10.2's own style
(`jax._src.interpreters.mlir.custom_call` with layouts and aliases, `mlir.lower_fun`
called from a builder rule, one rule for two primitives through `ctx.primitive`, tokens
passed on, platform-specific rules), each checked against the values jax 0.10.2 gives
for the same rule (recorded from /work/jaxref)."""
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


# --- jax 0.10.2-style rules. The same code, run on jax 0.10.2 (with `jax.` imports and
# `from jax._src.interpreters import mlir as mlir_src`), gave the values below.
from astjax.compat._src.interpreters import mlir as mlir_src  # noqa: E402

SPD = np.array([[4.0, 2.0, 0.4], [2.0, 3.0, 0.5], [0.4, 0.5, 2.0]], np.float32)
X6 = np.array([1.0, 2.0, 3.0, 0.5, -1.5, 2.5], np.float32)
Y6 = np.array([0.5, 5.0, -3.0, 0.5, 0.0, 2.0], np.float32)

chol_p = Primitive("test_builders_chol_cc")
chol_p.multiple_results = True
chol_p.def_abstract_eval(lambda a, *, lower: [ShapedArray(a.shape, a.dtype),
                                              ShapedArray((), np.int32)])


def _chol_lowering(ctx, a, *, lower):
    return mlir_src.custom_call(
        "lapack_spotrf_ffi",
        result_types=[mlir.aval_to_ir_type(ctx.module_context, v) for v in ctx.avals_out],
        operands=[a],
        backend_config={"uplo": mlir.ir_attribute(np.uint8(ord("L" if lower else "U")))},
        api_version=4, operand_layouts=[(0, 1)], result_layouts=[(0, 1), ()],
        operand_output_aliases={0: 0}).results


mlir.register_lowering(chol_p, _chol_lowering, platform="cpu")


def test_jax_custom_call_helper():
    from astjax.primitives.lapack import register_targets
    register_targets()
    factor, info = astjax.jit(lambda m: chol_p.bind(m, lower=True))(SPD)
    assert int(info) == 0
    np.testing.assert_allclose(np.asarray(factor), [   # jax 0.10.2
        [2.0, 2.0, 0.4000000059604645], [1.0, 1.4142135381698608, 0.5],
        [0.20000000298023224, 0.2121320366859436, 1.3838351964950562]], rtol=1e-6)
    factor, _ = astjax.jit(lambda m: chol_p.bind(m, lower=False))(SPD)
    np.testing.assert_allclose(np.asarray(factor), [
        [2.0, 1.0, 0.20000000298023224], [2.0, 1.4142135381698608, 0.2121320366859436],
        [0.4000000059604645, 0.5, 1.3838351964950562]], rtol=1e-6)
    # the op as jax 0.10.2 prints it: a dict config goes in mhlo.backend_config
    text = astjax.jit(lambda m: chol_p.bind(m, lower=True)).lower(SPD).as_text()
    line = next(ln.strip() for ln in text.splitlines() if "stablehlo.custom_call" in ln)
    assert line.split(" = ", 1)[1] == (
        'stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {backend_config = "", '
        'mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : '
        'tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<'
        'output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], '
        'result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : '
        '(tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)')


def test_custom_call_string_config_and_layout_checks():
    from astjax.codegen.mlir_builders import new_context
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.RankedTensorType.get([2], ir.F32Type.get())
        with ir.InsertionPoint(module.body):
            x = hlo.ConstantOp(ir.DenseElementsAttr.get(np.ones(2, np.float32))).result
            op = mlir_src.custom_call("my_target", result_types=[f32], operands=[x],
                                      backend_config="opaque", has_side_effect=True)
            text = str(op)
            assert 'backend_config = "opaque"' in text and "has_side_effect = true" in text
            assert "api_version = 2" in text
            with pytest.raises(ValueError, match="1 result layouts for 2 results"):
                mlir_src.custom_call("t", result_types=[f32, f32], operands=[x],
                                     result_layouts=[(0,)])


sumprod_p = Primitive("test_builders_sumsq_prod")
sumprod_p.def_abstract_eval(lambda x, *, scale: ShapedArray((), x.dtype))


def _sumprod_lowering(ctx, x, *, scale):
    aval = ctx.avals_in[0]
    n = aval.shape[0]
    sq = hlo.MulOp(x, x).result
    m = hlo.ReshapeOp(ir.RankedTensorType.get([2, n // 2], mlir.dtype_to_ir_type(aval.dtype)),
                      sq).result
    return mlir.lower_fun(lambda v, *, scale: jnp.prod(v.sum(axis=1)) * scale,
                          multiple_results=False)(
        ctx.replace(avals_in=[ShapedArray((2, n // 2), aval.dtype)]), m, scale=scale)


mlir.register_lowering(sumprod_p, _sumprod_lowering)


def test_lower_fun_inside_a_builder_rule():
    f = astjax.jit(lambda v: sumprod_p.bind(v, scale=0.5))
    assert float(f(X6)) == 61.25   # jax 0.10.2
    text = f.lower(X6).as_text()
    assert "func.func private @astjax_lower_fun_" in text
    assert "stablehlo.reduce" in text   # the staged jnp code, lowered by astjax


def test_lower_fun_nested_builder_rules_get_distinct_functions():
    # lower_fun's function binds a primitive whose rule is itself a builder rule
    nest_p = Primitive("test_builders_nest")
    nest_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(nest_p, lambda ctx, x: mlir.lower_fun(
        lambda v: multiply_add_p.bind(v, v, v), multiple_results=False)(ctx, x))
    f = astjax.jit(lambda v: nest_p.bind(nest_p.bind(v)))
    y = X6 * X6 + X6
    np.testing.assert_allclose(np.asarray(f(X6)), y * y + y, rtol=1e-6)
    text = f.lower(X6).as_text()
    names = [ln.split("@")[1].split("(")[0] for ln in text.splitlines()
             if "func.func private" in ln]
    assert len(names) == len(set(names)) == 6, names


addlike_p = Primitive("test_builders_addlike")
maxlike_p = Primitive("test_builders_maxlike")
for _p in (addlike_p, maxlike_p):
    _p.def_abstract_eval(lambda x, y: ShapedArray(x.shape, x.dtype))
_BINARY = {addlike_p: hlo.AddOp, maxlike_p: hlo.MaxOp}
_seen = []


def _binary_lowering(ctx, x, y):
    _seen.append((ctx.primitive.name, len(ctx.tokens_in), str(ctx.name_stack)))
    ctx.set_tokens_out(ctx.tokens_in)
    return [_BINARY[ctx.primitive](x, y).result]


for _p in (addlike_p, maxlike_p):
    mlir.register_lowering(_p, _binary_lowering)


def test_one_rule_for_two_primitives_by_ctx_primitive():
    _seen.clear()
    out = astjax.jit(lambda u, v: maxlike_p.bind(addlike_p.bind(u, v), u))(X6, Y6)
    assert np.asarray(out).tolist() == [1.5, 7.0, 3.0, 1.0, -1.5, 4.5]   # jax 0.10.2
    assert [s[:2] for s in _seen] == [("test_builders_addlike", 0),
                                      ("test_builders_maxlike", 0)]


def test_tokens_of_an_effect_are_refused():
    from astjax.codegen.mlir_builders import TokenSet
    tok_p = Primitive("test_builders_tokens")
    tok_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))

    def rule(ctx, x):
        ctx.set_tokens_out(TokenSet({"io": x}))
        return [x]
    mlir.register_lowering(tok_p, rule)
    with pytest.raises(ValueError, match="without ordered effects"):
        astjax.jit(lambda v: tok_p.bind(v))(X6)


def test_platform_rules():
    plat_p = Primitive("test_builders_plat")
    plat_p.def_abstract_eval(lambda x, y: ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(plat_p, lambda ctx, x, y: [hlo.AddOp(x, y).result])
    mlir.register_lowering(plat_p, lambda ctx, x, y: [hlo.MulOp(x, y).result],
                           platform="cpu")
    # jax 0.10.2: the cpu rule wins over the common one
    assert np.asarray(astjax.jit(lambda u, v: plat_p.bind(u, v))(X6, Y6)).tolist() == [
        0.5, 10.0, -9.0, 0.25, -0.0, 5.0]
    gpu_p = Primitive("test_builders_gpu_only")
    gpu_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(gpu_p, lambda ctx, x: [x], platform="gpu", inline=False,
                           cacheable=False)
    # jax 0.10.2: NotImplementedError, this message
    with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive "
                       "'test_builders_gpu_only' not found for platform cpu"):
        astjax.jit(lambda u: gpu_p.bind(u))(X6)
    from astjax.errors import AstjaxError
    with pytest.raises(NotImplementedError, match="unknown platform tpuu. Known platforms "
                       "are: cpu, cuda, gpu, oneapi, rocm, tpu.") as e:
        mlir.register_lowering(gpu_p, lambda ctx, x: [x], platform="tpuu")
    assert isinstance(e.value, AstjaxError)


def test_attribute_helpers():
    from astjax.codegen.mlir_builders import new_context
    with new_context(), ir.Location.unknown():   # the strings jax 0.10.2 prints
        assert str(mlir.i32_attr(3)) == "3 : i32" and str(mlir.i64_attr(3)) == "3 : i64"
        assert str(mlir.dense_int_array([1, 2])) == "array<i64: 1, 2>"
        assert str(mlir.ir_attribute(np.float32(1.5))) == "1.500000e+00 : f32"
        assert str(mlir.ir_attribute(7)) == "7 : i64"
        assert str(mlir.ir_attribute({"a": True})) == "{a = true}"
        assert str(mlir.dtype_to_ir_type(np.dtype(np.int64))) == "i64"
        assert str(mlir.token_type()) == "!stablehlo.token"
        assert str(mlir.ir_attribute(np.array([1, 2], np.int32))) == \
            "dense<[1, 2]> : tensor<2xi32>"
        assert str(mlir.ir_attribute(2.5)) == "2.500000e+00 : f64"
        assert str(mlir.ir_attribute(np.uint8(76))) == "76 : ui8"


clampcount_p = Primitive("test_builders_clampcount")
clampcount_p.multiple_results = True
clampcount_p.def_abstract_eval(lambda x: [ShapedArray(x.shape, x.dtype),
                                          ShapedArray(x.shape, np.bool_),
                                          ShapedArray(x.shape, np.int32)])


def _clampcount_lowering(ctx, x):
    aval, = ctx.avals_in
    zero = mlir_src.full_like_aval(ctx, 0, aval)
    relu = hlo.select(mlir_src.compare_hlo(x, zero, "GT"), x, zero)
    nonzero = mlir_src.convert_hlo(ctx, x, aval, ctx.avals_out[1])
    as_int = mlir_src.convert_hlo(ctx, x, aval, ctx.avals_out[2])
    row = mlir_src.broadcast_in_dim(ctx, mlir.ir_constant(np.float32(0.0)), aval,
                                    broadcast_dimensions=[])
    return [hlo.add(relu, row), nonzero, as_int]


mlir.register_lowering(clampcount_p, _clampcount_lowering)


def test_jax_op_helpers():
    z = np.array([1.5, -2.0, 0.0, 3.7, -0.2, 0.0], np.float32)
    relu, nonzero, as_int = astjax.jit(lambda v: clampcount_p.bind(v))(z)
    # jax 0.10.2: to bool is `x != 0` (-0.2 -> True), to int truncates
    np.testing.assert_allclose(np.asarray(relu), [1.5, 0.0, 0.0, 3.7, 0.0, 0.0])
    assert np.asarray(nonzero).tolist() == [True, True, False, True, True, False]
    assert np.asarray(as_int).tolist() == [1, -2, 0, 3, 0, 0]


def test_lower_fun_inside_a_builder_rule_reaches_host_callbacks(capfd):
    """The function lower_fun lowers shares the module's host callbacks: a
    `debug.print` and a `pure_callback` staged there run."""
    cb_p = Primitive("test_builders_callbacks")
    cb_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))

    def fun(v):
        astjax.debug.print("inside {}", v)
        return astjax.pure_callback(lambda a: np.asarray(a) * 3,
                                    ShapedArray(v.shape, v.dtype), v) + 1
    mlir.register_lowering(cb_p, lambda ctx, x: mlir.lower_fun(fun, multiple_results=False)(
        ctx, hlo.add(x, x)))
    assert float(astjax.jit(lambda v: cb_p.bind(v))(np.float32(2.0))) == 13.0
    astjax.effects_barrier()
    assert "inside 4.0" in capfd.readouterr().out
