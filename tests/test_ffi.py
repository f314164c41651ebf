"""`astjax.ffi` (JAX's `jax.ffi`) and `jax._src.dispatch.apply_primitive`.

The scenarios of tests/oracle/record_ffi.py call jaxlib's own CPU FFI kernels
(`lapack_spotrf_ffi`, `lapack_sgetrf_ffi`) through `ffi_call` as a user would --
eagerly, under `jit`, under `vmap` with every `vmap_method`, and through a user
primitive lowered by `ffi_lowering` -- and compare with jax 0.10.2's stored outcomes
(values, or the error's builtin class and message). Then: the lowered custom call,
side effects under DCE, located errors, and a kernel compiled here from C++ against
jaxlib's `ffi.h` (skipped when no C++ compiler is installed)."""
import functools
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
from astjax import ffi
from astjax.errors import AstjaxError

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_ffi as R  # noqa: E402
from oracle import compare  # noqa: E402

ORACLE = compare.load("ffi")
JAX_FFI_NAMES = {"build_ffi_lowering_function", "ffi_call", "ffi_lowering", "include_dir",
                 "pycapsule", "register_ffi_target",
                 "register_ffi_target_as_batch_partitionable", "register_ffi_type",
                 "register_ffi_type_id"}


@pytest.mark.parametrize("name", sorted(R.SCENARIOS))
def test_scenario_as_jax(name):
    got, want = R.outcome(lambda: R.SCENARIOS[name](astjax)), ORACLE[name]
    if "error" in want:
        assert "error" in got, got
        assert set(want["bases"]) <= set(got["bases"]), (got, want)
        assert want["message"] in got["message"], (got["message"], want["message"])
        return
    assert "values" in got, got
    assert got["tuple"] == want["tuple"]
    assert len(got["values"]) == len(want["values"])
    for (gd, gs, gv), (wd, ws, wv) in zip(got["values"], want["values"]):
        assert (gd, gs) == (wd, ws)
        np.testing.assert_allclose(gv, wv, rtol=1e-6, atol=1e-6)


def test_names_are_jaxs():
    public = {n for n in dir(ffi) if not n.startswith("_")}
    assert JAX_FFI_NAMES <= public
    assert set(ffi.__all__) == JAX_FFI_NAMES


def test_served_as_jax_ffi():
    astjax.install_as_jax()
    import jax.ffi   # noqa: F401
    assert sys.modules["jax.ffi"] is ffi


def test_lowered_custom_call_has_the_attributes_layouts_and_api_version():
    text = astjax.jit(lambda a: R.potrf(astjax)(a, uplo=R.L)).lower(R.SPD).as_text()
    line = next(ln for ln in text.splitlines() if "custom_call" in ln)
    assert "@lapack_spotrf_ffi" in line
    assert "api_version = 4 : i32" in line
    assert "backend_config = {uplo = 76 : ui8}" in line
    assert "operand_layouts = [dense<[0, 1]> : tensor<2xindex>]" in line
    assert ("result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]"
            in line)


def test_batched_layouts_put_the_batch_outermost():
    f = astjax.vmap(lambda a: R.potrf(astjax, vmap_method="broadcast_all")(a, uplo=R.L))
    text = astjax.jit(f).lower(np.stack([R.SPD, R.SPD2])).as_text()
    line = next(ln for ln in text.splitlines() if "custom_call" in ln)
    assert "operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]" in line


def test_side_effect_keeps_an_unused_call():
    def unused(effect):
        def f(a):
            R.potrf(astjax, has_side_effect=effect)(a, uplo=R.L)
            return a * 2.0
        return f
    kept = astjax.jit(unused(True)).lower(R.SPD).as_text()
    dropped = astjax.jit(unused(False)).lower(R.SPD).as_text()
    assert "has_side_effect = true" in kept and "lapack_spotrf_ffi" in kept
    assert "lapack_spotrf_ffi" not in dropped
    np.testing.assert_allclose(astjax.jit(unused(True))(R.SPD), R.SPD * 2)


def test_jaxpr_has_one_ffi_call_equation():
    jaxpr = astjax.make_jaxpr(lambda a: R.potrf(astjax)(a, uplo=R.L))(R.SPD)
    eqns = jaxpr.jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ["ffi_call"]
    assert eqns[0].params["attributes"] == (("uplo", R.L),)
    assert eqns[0].params["input_layouts"] == ((0, 1),)


def test_array_and_dict_attributes_are_hashable_and_printed():
    from astjax.mlir_attributes import dictionary_text
    from astjax.primitives.ffi_call import FrozenDict, HashableArray
    a, b = HashableArray(np.arange(3, dtype=np.int32)), HashableArray(np.arange(3, dtype=np.int32))
    assert a == b and hash(a) == hash(b) and a != HashableArray(np.arange(3.))
    assert hash(FrozenDict({"k": 1})) == hash(FrozenDict({"k": 1}))
    assert dictionary_text({"v": a.val, "d": {"k": 1}, "c": R.L, "f": 0.5}) == (
        "{c = 76 : ui8, d = {k = 1 : i64}, f = 5.000000e-01 : f64, "
        "v = dense<[0, 1, 2]> : tensor<3xi32>}")


def test_errors_are_located_and_jaxs_class():
    with pytest.raises(ValueError) as e:
        astjax.grad(lambda a: R.potrf(astjax)(a, uplo=R.L)[0].sum())(R.SPD)
    assert isinstance(e.value, AstjaxError)
    with pytest.raises(NotImplementedError) as e:
        astjax.vmap(lambda a: R.potrf(astjax)(a, uplo=R.L))(np.stack([R.SPD, R.SPD]))
    assert isinstance(e.value, AstjaxError) and "vmap_method" in str(e.value)
    with pytest.raises(ValueError) as e:
        ffi.ffi_call("t", astjax.ShapeDtypeStruct((3,), np.float32), vmap_method="rows")
    assert isinstance(e.value, AstjaxError) and "test_ffi.py" in str(e.value)
    with pytest.raises(TypeError) as e:
        R.potrf(astjax)(R.SPD, uplo={1, 2})
    assert isinstance(e.value, AstjaxError)


def test_attributes_need_api_version_4():
    f = ffi.ffi_call("lapack_spotrf_ffi", astjax.ShapeDtypeStruct((3, 3), np.float32),
                     custom_call_api_version=2)
    with pytest.raises(ValueError, match="at least 4; got api_version=2"):
        astjax.jit(lambda a: f(a, uplo=R.L)).lower(R.SPD)


def test_include_dir_has_the_ffi_header():
    assert (Path(ffi.include_dir()) / "xla" / "ffi" / "api" / "ffi.h").is_file()


# ------------------------------------------------- a kernel compiled here

_KERNEL = r"""
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error ScaleImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y,
                            float factor) {
  for (size_t i = 0; i < x.element_count(); ++i)
    y->typed_data()[i] = x.typed_data()[i] * factor;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AstjaxTestScale, ScaleImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>()
        .Attr<float>("factor"));
"""


@pytest.fixture(scope="module")
def scale_target(compile_ffi_kernels):
    lib = compile_ffi_kernels(_KERNEL, "scale")
    ffi.register_ffi_target("astjax_test_scale", ffi.pycapsule(lib.AstjaxTestScale),
                            platform="cpu")
    return "astjax_test_scale"


def _scale(target, shape, **kw):
    return ffi.ffi_call(target, astjax.ShapeDtypeStruct(shape, np.float32), **kw)


def test_compiled_kernel_eager_jit_vmap(scale_target):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    three = np.float32(3)
    np.testing.assert_array_equal(_scale(scale_target, (2, 3))(x, factor=three), x * 3)
    np.testing.assert_array_equal(
        astjax.jit(lambda v: _scale(scale_target, (2, 3))(v + 1, factor=three))(x), (x + 1) * 3)
    for method in ("sequential", "expand_dims", "broadcast_all"):
        out = astjax.vmap(lambda r: _scale(scale_target, (3,), vmap_method=method)(
            r, factor=np.float32(0.5)))(x)
        np.testing.assert_array_equal(out, x * 0.5)
    aliased = _scale(scale_target, (2, 3), input_output_aliases={0: 0})
    np.testing.assert_array_equal(astjax.jit(lambda v: aliased(v * 2, factor=three))(x), x * 6)


def test_compiled_kernel_wrong_attribute_type_is_a_runtime_error(scale_target):
    with pytest.raises(RuntimeError, match="expected F32 but got F64"):
        _scale(scale_target, (3,))(np.ones(3, np.float32), factor=2.0)   # f64, not f32


# ------------------------------------------------- jax._src.dispatch.apply_primitive


def test_apply_primitive_runs_one_primitive():
    from astjax.compat._src.dispatch import apply_primitive
    from astjax.core import primitives
    assert float(apply_primitive(primitives["add"], np.float32(1.5), np.float32(2))) == 3.5
    np.testing.assert_array_equal(
        apply_primitive(primitives["reduce_sum"], np.arange(6., dtype=np.float32).reshape(2, 3),
                        axes=(1,), out_sharding=None), [3., 12.])


def test_apply_primitive_as_a_user_primitives_impl():
    """The FFI tutorial's pattern: impl = apply_primitive, lowering = ffi_lowering."""
    from astjax.compat._src.dispatch import apply_primitive
    from astjax.extend.core import Primitive
    from astjax.interpreters import mlir
    p = Primitive("astjax_test_potrf")
    p.multiple_results = True
    p.def_impl(functools.partial(apply_primitive, p))
    p.def_abstract_eval(lambda a, **_: (a, astjax.core.ShapedArray((), np.int32)))
    mlir.register_lowering(p, ffi.ffi_lowering("lapack_spotrf_ffi", operand_layouts=[(0, 1)],
                                               result_layouts=[(0, 1), ()]))
    want = ORACLE["potrf_eager"]["values"]
    for out in (p.bind(R.SPD, uplo=R.L), astjax.jit(lambda a: p.bind(a, uplo=R.L))(R.SPD)):
        np.testing.assert_allclose(np.ravel(out[0]), want[0][2], rtol=1e-6)
        assert int(out[1]) == 0


def test_printed_source_runs_again():
    def f(a):
        c, info = R.potrf(astjax)(a * 2.0, uplo=R.L)
        return c[2, 2] + info
    assert "ffi_call_p.bind(" in astjax.source(f, R.SPD)
    g = astjax.source_function(f, R.SPD)
    np.testing.assert_allclose(g(R.SPD), f(R.SPD), rtol=1e-6)
    np.testing.assert_allclose(astjax.jit(g)(R.SPD), f(R.SPD), rtol=1e-6)


def test_calls_inside_staged_loops_and_branches():
    @astjax.jit
    def f(a):
        total = 0.0
        for i in range(3):   # a scan: one ffi_call in its body
            c, info = R.potrf(astjax)(a + i, uplo=R.L)
            total = total + c[2, 2] + info
        if a[0, 0] > 0:      # a cond
            total = total + R.potrf(astjax)(a, uplo=R.L)[0][0, 0]
        return total
    want = sum(float(R.potrf(astjax)(R.SPD + i, uplo=R.L)[0][2, 2]) for i in range(3)) + 2.0
    np.testing.assert_allclose(f(R.SPD), want, rtol=1e-6)


def test_missing_target_is_located_at_the_call():
    from astjax.errors import JaxRuntimeError

    def f(x):
        y = x + 1
        return ffi.ffi_call("astjax_no_such_target", astjax.ShapeDtypeStruct((3,), np.float32))(y)
    for fn in (f, astjax.jit(f)):
        with pytest.raises(JaxRuntimeError) as e:
            fn(np.ones(3, np.float32))
        assert isinstance(e.value, AstjaxError)
        assert "No FFI handler registered for astjax_no_such_target" in str(e.value)
        assert 'ffi.ffi_call("astjax_no_such_target"' in str(e.value)   # the source line
        assert "test_ffi.py" in str(e.value)


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all", "legacy_vectorized"])
def test_vmap_over_a_later_axis_and_nested(method):
    st0 = np.stack([R.SPD, R.NOT_SPD, R.SPD2])

    def f(a):
        return R.potrf(astjax, vmap_method=method)(a, uplo=R.L)
    for got, want in zip(astjax.vmap(f, in_axes=2)(np.moveaxis(st0, 0, 2)),
                         astjax.vmap(f)(st0)):
        np.testing.assert_array_equal(got, want)
    info = astjax.vmap(astjax.vmap(lambda a: f(a)[1]))(np.stack([st0, st0[::-1]]))
    np.testing.assert_array_equal(info, [[0, 2, 0], [0, 2, 0]])


def test_jax_src_ffi_serves_library_lowerings():
    """`from jax._src import ffi` as real libraries write it (e.g. sparse kernels forwarded
    from jaxlib): a user primitive whose lowering is `ffi.ffi_lowering(target)` and
    whose eager implementation is `dispatch.simple_impl`; JAX's values."""
    astjax.install_as_jax()
    from jax._src import core, dispatch
    from jax._src import ffi as jax_src_ffi
    from jax._src.interpreters import mlir
    from astjax.compat._src import ffi as served
    assert jax_src_ffi is served
    assert JAX_FFI_NAMES <= set(jax_src_ffi.__all__)
    assert jax_src_ffi.ffi_call_p is astjax.primitives.ffi_call.ffi_call_p
    p = core.Primitive("astjax_test_src_potrf")
    p.multiple_results = True
    p.def_abstract_eval(lambda a, **_: (core.ShapedArray(a.shape, a.dtype),
                                        core.ShapedArray((), np.int32)))

    def lowering(ctx, a, **params):
        rule = jax_src_ffi.ffi_lowering("lapack_spotrf_ffi", operand_layouts=[(0, 1)],
                                        result_layouts=[(0, 1), ()])
        return rule(ctx, a, **params)
    mlir.register_lowering(p, lowering, platform="cpu")
    dispatch.simple_impl(p)
    want = ORACLE["potrf_eager"]["values"]
    for out in (p.bind(R.SPD, uplo=R.L), astjax.jit(lambda a: p.bind(a, uplo=R.L))(R.SPD)):
        np.testing.assert_allclose(np.ravel(out[0]), want[0][2], rtol=1e-6)
        assert int(out[1]) == 0
