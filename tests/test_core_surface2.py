"""`jax.core`'s exact surface: `ShapedArray.str_short` (dtypes named in full unless
`short_dtypes=True`, as JAX 0.10.2's) and `jax.core.eval_jaxpr` keeping weak types. The
expected values are JAX 0.10.2's (real `jax`, the same calls), stored as literals."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core


@pytest.mark.parametrize("dtype, shape, long, short", [
    (np.int32, (3,), "int32[3]", "i32[3]"),
    (np.float32, (2, 3), "float32[2,3]", "f32[2,3]"),
    (np.bool_, (2,), "bool[2]", "bool[2]"),
    (np.uint8, (2,), "uint8[2]", "u8[2]"),
    (np.complex64, (2,), "complex64[2]", "c64[2]"),
    (jnp.bfloat16, (2,), "bfloat16[2]", "bf16[2]"),
    (astjax.dtypes.float0, (2,), "float0[2]", "float0[2]"),
])
def test_str_short_names_dtypes_in_full_unless_asked(dtype, shape, long, short):
    a = core.ShapedArray(shape, dtype)
    assert a.str_short() == long
    assert a.str_short(short_dtypes=True) == a.str_short(True, False) == short
    assert a.str_short(short_dtypes=False, mesh_axis_types=False) == long


def test_str_short_of_weak_float0_and_other_types():
    assert core.ShapedArray((), np.float32, weak_type=True).str_short() == "float32[]"
    assert core.ShapedArray((), np.float32, weak_type=True).str_short(True) == "f32[]"
    f0 = core.ShapedArray((2,), astjax.dtypes.float0)
    assert (str(f0), repr(f0)) == ("float0[2]", "ShapedArray(float0[2])")
    ref = astjax.typeof(astjax.new_ref(jnp.zeros(3)))
    assert (ref.str_short(), ref.str_short(short_dtypes=True)) == ("Ref{float32[3]}",
                                                                   "Ref{f32[3]}")
    key = astjax.typeof(astjax.random.key(0))
    assert (key.str_short(), key.str_short(True)) == ("key<fry>[]", "key<fry>[]")
    tok = astjax.typeof(astjax.lax.create_token())
    assert (tok.str_short(), tok.str_short(True)) == ("Tok", "Tok")


def test_jaxprs_still_print_short_dtypes():
    assert str(astjax.make_jaxpr(lambda x: x * 2)(1.0)) == (
        "{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }")


def _types(outs):
    return [repr(astjax.typeof(o)) for o in outs]


def test_eval_jaxpr_keeps_weak_types():
    cj = astjax.make_jaxpr(lambda x: x * 2)(1.0)
    outs = core.eval_jaxpr(cj.jaxpr, cj.consts, 1.0)
    assert _types(outs) == ["ShapedArray(float32[], weak_type=True)"]
    assert outs[0].weak_type and float(outs[0]) == 2.0
    # a strong argument: a strong result
    assert _types(core.eval_jaxpr(cj.jaxpr, cj.consts, np.float32(1.0))) == [
        "ShapedArray(float32[])"]
    cj = astjax.make_jaxpr(lambda x: jnp.sin(x) + 1.5)(2.0)
    assert _types(core.eval_jaxpr(cj.jaxpr, cj.consts, 2.0)) == [
        "ShapedArray(float32[], weak_type=True)"]
    cj = astjax.make_jaxpr(lambda x: x * 2)(3)
    assert _types(core.eval_jaxpr(cj.jaxpr, cj.consts, 3)) == [
        "ShapedArray(int32[], weak_type=True)"]
    cj = astjax.make_jaxpr(lambda x, y: (x + 1, y * 2, x + y))(1, jnp.float32(2.0))
    assert _types(core.eval_jaxpr(cj.jaxpr, cj.consts, 1, jnp.float32(2.0))) == [
        "ShapedArray(int32[], weak_type=True)", "ShapedArray(float32[])",
        "ShapedArray(float32[])"]


def test_eval_jaxpr_of_a_returned_literal_is_weak():
    # (JAX returns its literal, a `TypedFloat(3.0, dtype=float32)`: a weak float32)
    cj = astjax.make_jaxpr(lambda x: (x * 2, 3.0))(1.0)
    outs = core.eval_jaxpr(cj.jaxpr, cj.consts, 1.0)
    assert _types(outs) == ["ShapedArray(float32[], weak_type=True)"] * 2
    assert float(outs[1]) == 3.0
    # and without source information, alike
    outs = core.eval_jaxpr(cj.jaxpr, cj.consts, 1.0, propagate_source_info=False)
    assert _types(outs) == ["ShapedArray(float32[], weak_type=True)"] * 2
