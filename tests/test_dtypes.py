"""JAX's type-promotion table, weak types included, checked against
`astjax.dtypes.result_type`; plus the dtype policy (`x * 2` stays f32, ints default
to int32, f64 only under x64).

The expected tables were generated ONCE with jax 0.10.2 (in a separate process,
`jax._src.dtypes.result_type(a, b, return_weak_type_flag=True)`, with and without
x64) and are stored here as literals: CI has no jax. Keys: dtype short names;
`i*`, `f*`, `c*` are the weak types of Python int, float, complex. A trailing `*`
on an entry means the result is weak.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import dtypes
from astjax.config import config

NAMES = ['b1', 'u8', 'u16', 'u32', 'u64', 'i8', 'i16', 'i32', 'i64', 'bf16', 'f16', 'f32', 'f64', 'c64', 'c128', 'i*', 'f*', 'c*']

# jax_enable_x64=True
TABLE_X64 = {
    #              b1      u8     u16     u32     u64      i8     i16     i32     i64    bf16     f16     f32     f64     c64    c128      i*      f*      c*
    'b1'  : [   'b1',    'u8',   'u16',   'u32',   'u64',    'i8',   'i16',   'i32',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',  'i64*',  'f64*', 'c128*'],
    'u8'  : [   'u8',    'u8',   'u16',   'u32',   'u64',   'i16',   'i16',   'i32',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',    'u8',  'f64*', 'c128*'],
    'u16' : [  'u16',   'u16',   'u16',   'u32',   'u64',   'i32',   'i32',   'i32',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',   'u16',  'f64*', 'c128*'],
    'u32' : [  'u32',   'u32',   'u32',   'u32',   'u64',   'i64',   'i64',   'i64',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',   'u32',  'f64*', 'c128*'],
    'u64' : [  'u64',   'u64',   'u64',   'u64',   'u64',  'f64*',  'f64*',  'f64*',  'f64*',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',   'u64',  'f64*', 'c128*'],
    'i8'  : [   'i8',   'i16',   'i32',   'i64',  'f64*',    'i8',   'i16',   'i32',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',    'i8',  'f64*', 'c128*'],
    'i16' : [  'i16',   'i16',   'i32',   'i64',  'f64*',   'i16',   'i16',   'i32',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',   'i16',  'f64*', 'c128*'],
    'i32' : [  'i32',   'i32',   'i32',   'i64',  'f64*',   'i32',   'i32',   'i32',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',   'i32',  'f64*', 'c128*'],
    'i64' : [  'i64',   'i64',   'i64',   'i64',  'f64*',   'i64',   'i64',   'i64',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',   'i64',  'f64*', 'c128*'],
    'bf16': [ 'bf16',  'bf16',  'bf16',  'bf16',  'bf16',  'bf16',  'bf16',  'bf16',  'bf16',  'bf16',   'f32',   'f32',   'f64',   'c64',  'c128',  'bf16',  'bf16',   'c64'],
    'f16' : [  'f16',   'f16',   'f16',   'f16',   'f16',   'f16',   'f16',   'f16',   'f16',   'f32',   'f16',   'f32',   'f64',   'c64',  'c128',   'f16',   'f16',   'c64'],
    'f32' : [  'f32',   'f32',   'f32',   'f32',   'f32',   'f32',   'f32',   'f32',   'f32',   'f32',   'f32',   'f32',   'f64',   'c64',  'c128',   'f32',   'f32',   'c64'],
    'f64' : [  'f64',   'f64',   'f64',   'f64',   'f64',   'f64',   'f64',   'f64',   'f64',   'f64',   'f64',   'f64',   'f64',  'c128',  'c128',   'f64',   'f64',  'c128'],
    'c64' : [  'c64',   'c64',   'c64',   'c64',   'c64',   'c64',   'c64',   'c64',   'c64',   'c64',   'c64',   'c64',  'c128',   'c64',  'c128',   'c64',   'c64',   'c64'],
    'c128': [ 'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128',  'c128'],
    'i*'  : [ 'i64*',    'u8',   'u16',   'u32',   'u64',    'i8',   'i16',   'i32',   'i64',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',  'i64*',  'f64*', 'c128*'],
    'f*'  : [ 'f64*',  'f64*',  'f64*',  'f64*',  'f64*',  'f64*',  'f64*',  'f64*',  'f64*',  'bf16',   'f16',   'f32',   'f64',   'c64',  'c128',  'f64*',  'f64*', 'c128*'],
    'c*'  : ['c128*', 'c128*', 'c128*', 'c128*', 'c128*', 'c128*', 'c128*', 'c128*', 'c128*',   'c64',   'c64',   'c64',  'c128',   'c64',  'c128', 'c128*', 'c128*', 'c128*'],
}

# jax_enable_x64=False (inputs are canonicalized first, as JAX does)
TABLE_X32 = {
    #             b1     u8    u16    u32    u64     i8    i16    i32    i64   bf16    f16    f32    f64    c64   c128     i*     f*     c*
    'b1'  : [  'b1',   'u8',  'u16',  'u32',  'u32',   'i8',  'i16',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64', 'i32*', 'f32*', 'c64*'],
    'u8'  : [  'u8',   'u8',  'u16',  'u32',  'u32',  'i16',  'i16',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',   'u8', 'f32*', 'c64*'],
    'u16' : [ 'u16',  'u16',  'u16',  'u32',  'u32',  'i32',  'i32',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',  'u16', 'f32*', 'c64*'],
    'u32' : [ 'u32',  'u32',  'u32',  'u32',  'u32',  'i32',  'i32',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',  'u32', 'f32*', 'c64*'],
    'u64' : [ 'u32',  'u32',  'u32',  'u32',  'u32',  'i32',  'i32',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',  'u32', 'f32*', 'c64*'],
    'i8'  : [  'i8',  'i16',  'i32',  'i32',  'i32',   'i8',  'i16',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',   'i8', 'f32*', 'c64*'],
    'i16' : [ 'i16',  'i16',  'i32',  'i32',  'i32',  'i16',  'i16',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',  'i16', 'f32*', 'c64*'],
    'i32' : [ 'i32',  'i32',  'i32',  'i32',  'i32',  'i32',  'i32',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',  'i32', 'f32*', 'c64*'],
    'i64' : [ 'i32',  'i32',  'i32',  'i32',  'i32',  'i32',  'i32',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64',  'i32', 'f32*', 'c64*'],
    'bf16': ['bf16', 'bf16', 'bf16', 'bf16', 'bf16', 'bf16', 'bf16', 'bf16', 'bf16', 'bf16',  'f32',  'f32',  'f32',  'c64',  'c64', 'bf16', 'bf16',  'c64'],
    'f16' : [ 'f16',  'f16',  'f16',  'f16',  'f16',  'f16',  'f16',  'f16',  'f16',  'f32',  'f16',  'f32',  'f32',  'c64',  'c64',  'f16',  'f16',  'c64'],
    'f32' : [ 'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'c64',  'c64',  'f32',  'f32',  'c64'],
    'f64' : [ 'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'f32',  'c64',  'c64',  'f32',  'f32',  'c64'],
    'c64' : [ 'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64'],
    'c128': [ 'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64'],
    'i*'  : ['i32*',   'u8',  'u16',  'u32',  'u32',   'i8',  'i16',  'i32',  'i32', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64', 'i32*', 'f32*', 'c64*'],
    'f*'  : ['f32*', 'f32*', 'f32*', 'f32*', 'f32*', 'f32*', 'f32*', 'f32*', 'f32*', 'bf16',  'f16',  'f32',  'f32',  'c64',  'c64', 'f32*', 'f32*', 'c64*'],
    'c*'  : ['c64*', 'c64*', 'c64*', 'c64*', 'c64*', 'c64*', 'c64*', 'c64*', 'c64*',  'c64',  'c64',  'c64',  'c64',  'c64',  'c64', 'c64*', 'c64*', 'c64*'],
}

_DT = {"b1": np.bool_, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
       "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
       "bf16": dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "f64": np.float64,
       "c64": np.complex64, "c128": np.complex128}
_WEAK = {"i*": 1, "f*": 1.0, "c*": 1j}
_SHORT = {np.dtype(v): k for k, v in _DT.items()}


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request):
    old = config.x64_enabled
    config.update("jax_enable_x64", request.param)
    yield request.param
    config.update("jax_enable_x64", old)


def _arg(name):
    return _WEAK[name] if name in _WEAK else np.dtype(_DT[name])


def _got(a, b):
    dt, weak = dtypes.result_type(_arg(a), _arg(b), return_weak_type_flag=True)
    return _SHORT[np.dtype(dt)] + ("*" if weak else "")


@pytest.mark.parametrize("a", NAMES)
def test_promotion_table(x64, a):
    table = TABLE_X64 if x64 else TABLE_X32
    bad = [(a, b, _got(a, b), want) for b, want in zip(NAMES, table[a]) if _got(a, b) != want]
    assert not bad, "\n".join(f"result_type({a}, {b}) = {g}, JAX gives {w}" for a, b, g, w in bad)


def test_table_is_symmetric():
    for table in (TABLE_X64, TABLE_X32):
        for i, a in enumerate(NAMES):
            for j, b in enumerate(NAMES):
                assert table[a][j] == table[b][i]


@pytest.mark.parametrize("a", ["u8", "i16", "i32", "bf16", "f16", "f32", "c64"])
def test_weak_arrays_promote_like_python_scalars(x64, a):
    """A weak-typed array (e.g. `x * 2.0` of a weak value) promotes as its Python
    scalar category, whatever its concrete dtype."""
    table = TABLE_X64 if x64 else TABLE_X32
    for weak_name, weak_dtype in (("i*", np.int32), ("f*", np.float32)):
        aval = astjax.core.ShapedArray((), weak_dtype, True)
        dt, weak = dtypes.promote((np.dtype(_DT[a]), False), (aval.dtype, True))
        want = table[a][NAMES.index(weak_name)]
        assert _SHORT[np.dtype(dt)] + ("*" if weak else "") == want


def test_mul_python_scalar_keeps_float32():
    x = np.ones(3, np.float32)
    assert jnp.multiply(x, 2).dtype == np.float32
    assert astjax.jit(lambda x: x * 2)(x).dtype == np.float32
    assert astjax.jit(lambda x: x * 2.5)(x).dtype == np.float32
    assert astjax.jit(lambda x: 2 * x + 1)(np.ones(3, np.float16)).dtype == np.float16
    assert astjax.jit(lambda x: x * 2)(np.ones(3, np.int8)).dtype == np.int8
    assert astjax.jit(lambda x: x + 1.5)(np.ones(3, np.int32)).dtype == np.float32


def test_defaults_without_x64():
    if config.x64_enabled:
        pytest.skip("runs with x64 disabled")
    assert jnp.asarray(1).dtype == np.int32
    assert jnp.asarray(1.0).dtype == np.float32
    assert jnp.arange(3).dtype == np.int32
    assert jnp.zeros(3).dtype == np.float32
    assert astjax.jit(lambda x: x + 1)(np.int64(3)).dtype == np.int32
    assert astjax.jit(lambda x: x * 2)(np.ones(2)).dtype == np.float32  # f64 input narrowed
    assert dtypes.result_type(1, 1.0) == np.float32


def test_float64_only_under_x64(x64):
    f = astjax.jit(lambda x: x * 2)
    out = f(np.ones(2, np.float64))
    assert out.dtype == (np.float64 if x64 else np.float32)
    assert jnp.asarray(1.0).dtype == (np.float64 if x64 else np.float32)
    assert jnp.asarray(1).dtype == (np.int64 if x64 else np.int32)
    assert dtypes.result_type(np.float32, np.float64) == (np.float64 if x64 else np.float32)
    # a weak Python float never widens a float32 array, even under x64
    assert astjax.jit(lambda x: x * 2.0)(np.ones(2, np.float32)).dtype == np.float32
