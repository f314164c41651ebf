"""`jax.ffi` with kernels compiled here (C++ against jaxlib's `ffi.h`; skipped when no
C++ compiler is installed): a kernel's error status, side effects and XLA tokens.

- A kernel that returns an error status stops the program: JAX raises JaxRuntimeError
  with XLA's text ("INVALID_ARGUMENT: <the kernel's message>"); astjax raises its
  `FfiKernelError` (that class, an AstjaxError) located at the user's `ffi_call` line,
  eagerly and under jit, on every dispatch path, and runs the kernel once (a dispatch
  fallback used to run a failing program a second time).
- Tokens: `jax.core.abstract_token` results, token operands, `lax.create_token` /
  `lax.after_all`: the printed jaxpr is JAX's, and the calls run in token order.
Expected texts and values were recorded from jax 0.10.2 (/work/jaxref) calling the same
kernels."""
import ctypes

import numpy as np
import pytest

import astjax
from astjax import ffi, lax
from astjax.errors import AstjaxError, FfiKernelError, JaxRuntimeError
from astjax.extend.core import AbstractToken, Token

_KERNELS = r"""
#include <cmath>
#include <string>
#include <vector>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static int runs = 0;
static std::vector<float> journal;

static ffi::Error CheckedLogImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  ++runs;
  for (size_t i = 0; i < x.element_count(); ++i) {
    if (x.typed_data()[i] < 0)
      return ffi::Error::InvalidArgument("checked_log: negative input at index " +
                                         std::to_string(i));
    y->typed_data()[i] = std::log(x.typed_data()[i]);
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AstjaxTestCheckedLog, CheckedLogImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

static ffi::Error NeedsPositiveImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  ++runs;
  if (x.typed_data()[0] <= 0)
    return ffi::Error(ffi::ErrorCode::kFailedPrecondition, "needs_positive: x[0] <= 0");
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AstjaxTestNeedsPositive, NeedsPositiveImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

static ffi::Error RecordImpl(ffi::Token, ffi::Buffer<ffi::F32> x, ffi::Result<ffi::Token>,
                             ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    journal.push_back(x.typed_data()[i]);
    y->typed_data()[i] = x.typed_data()[i];
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AstjaxTestRecord, RecordImpl,
    ffi::Ffi::Bind().Arg<ffi::Token>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Token>().Ret<ffi::Buffer<ffi::F32>>());

static ffi::Error LogImpl(ffi::Buffer<ffi::F32> x) {
  for (size_t i = 0; i < x.element_count(); ++i) journal.push_back(x.typed_data()[i]);
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(AstjaxTestLog, LogImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>());

extern "C" int astjax_test_runs() { int n = runs; runs = 0; return n; }
extern "C" int astjax_test_journal(float* out, int cap) {
  int n = (int)journal.size();
  for (int i = 0; i < n && i < cap; ++i) out[i] = journal[i];
  journal.clear();
  return n;
}
"""

F32x3 = astjax.ShapeDtypeStruct((3,), np.float32)


@pytest.fixture(scope="module")
def lib(compile_ffi_kernels):
    lib = compile_ffi_kernels(_KERNELS, "kernels")
    for name, sym in [("astjax_t_checked_log", lib.AstjaxTestCheckedLog),
                      ("astjax_t_needs_positive", lib.AstjaxTestNeedsPositive),
                      ("astjax_t_record", lib.AstjaxTestRecord),
                      ("astjax_t_log", lib.AstjaxTestLog)]:
        ffi.register_ffi_target(name, ffi.pycapsule(sym), platform="cpu")
    lib.astjax_test_runs()
    return lib


def _journal(lib):
    buf = (ctypes.c_float * 256)()
    n = lib.astjax_test_journal(buf, 256)
    return list(buf[:n])


# ------------------------------------------------- a kernel's error status

def checked_log(x):
    return ffi.ffi_call("astjax_t_checked_log", F32x3)(x)   # the call line


def model(x):
    y = x * 2.0 - 3.0
    return checked_log(y).sum()


# jax 0.10.2: JaxRuntimeError("INVALID_ARGUMENT: checked_log: negative input at index 1")
_MESSAGE = "INVALID_ARGUMENT: checked_log: negative input at index 1"
_BAD = np.array([2.0, 1.0, 4.0], np.float32)    # 2x - 3 = [1, -1, 5]
_GOOD = np.array([2.0, 3.0, 4.0], np.float32)


def _raises_located(lib, thunk, message=_MESSAGE, cls=FfiKernelError):
    with pytest.raises(JaxRuntimeError) as e:
        thunk()
    err = e.value
    assert isinstance(err, cls) and isinstance(err, AstjaxError), type(err).__mro__
    assert message in str(err)
    assert "test_ffi_kernels.py" in str(err)
    assert 'ffi.ffi_call("astjax_t_checked_log", F32x3)(x)' in str(err) or \
        "needs_positive" in message
    assert lib.astjax_test_runs() == 1, "the kernel ran more than once"
    return err


def test_kernel_error_is_located_eager_and_jit(lib):
    assert np.isclose(float(model(_GOOD)), np.log(1.0) + np.log(3.0) + np.log(5.0))
    lib.astjax_test_runs()
    _raises_located(lib, lambda: model(_BAD))
    jitted = astjax.jit(model)
    # first call, then the cached paths: NumPy arguments (jaxlib's C++ dispatch once
    # it is set up) and Arrays
    for _ in range(3):
        _raises_located(lib, lambda: jitted(_BAD))
        for _ in range(3):
            float(jitted(_GOOD))
        lib.astjax_test_runs()
    assert astjax.api._CPP in jitted._fast   # (the C++ dispatch ran the last failing call)
    _raises_located(lib, lambda: jitted(_BAD))
    bad, good = astjax.numpy.asarray(_BAD), astjax.numpy.asarray(_GOOD)
    for _ in range(2):   # (a good call first: the Arrays' cached fast path)
        float(jitted(good))
        lib.astjax_test_runs()
        _raises_located(lib, lambda: jitted(bad))
    # eagerly on Arrays: the cached one-primitive program
    y = bad * 2.0 - 3.0
    for _ in range(2):
        _raises_located(lib, lambda: checked_log(y))


def test_invalid_argument_is_also_a_value_error(lib):
    """JAX raises INVALID_ARGUMENT statuses as JaxRuntimeError on a first call and as
    ValueError from its cached dispatch; astjax's error is both. Other codes are
    JaxRuntimeError only (jax 0.10.2: "FAILED_PRECONDITION: needs_positive: x[0] <= 0")."""
    with pytest.raises(ValueError):
        astjax.jit(model)(_BAD)
    lib.astjax_test_runs()
    f = ffi.ffi_call("astjax_t_needs_positive", F32x3)
    err = _raises_located(lib, lambda: astjax.jit(lambda x: f(x))(-_GOOD),
                          "FAILED_PRECONDITION: needs_positive: x[0] <= 0")
    assert not isinstance(err, ValueError)


def test_several_kernels_in_one_program_are_all_named(lib):
    pos = ffi.ffi_call("astjax_t_needs_positive", F32x3)

    def two(x):
        a = pos(x)
        return checked_log(a * 2.0 - 3.0)
    with pytest.raises(FfiKernelError) as e:
        astjax.jit(two)(_BAD)
    text = str(e.value)
    assert _MESSAGE in text
    assert "`astjax_t_needs_positive` (" in text and "`astjax_t_checked_log` (" in text
    lib.astjax_test_runs()


def test_failure_inside_a_loop_body_is_located(lib):
    def loop(x):
        return lax.fori_loop(0, 3, lambda i, v: checked_log(v + 1.0), x)
    np.testing.assert_allclose(astjax.jit(loop)(_GOOD), loop(_GOOD), rtol=1e-6)
    lib.astjax_test_runs()
    with pytest.raises(FfiKernelError) as e:
        astjax.jit(loop)(-_GOOD * 10)
    assert "negative input at index 0" in str(e.value) and "test_ffi_kernels.py" in str(e.value)


# ------------------------------------------------- side effects and tokens

def _record():
    return ffi.ffi_call("astjax_t_record", (astjax.core.abstract_token, F32x3),
                        has_side_effect=True)


def threaded(x):
    rec = _record()
    t = lax.create_token()
    t, a = rec(t, x)
    t, b = rec(t, x + 1)
    return a + b


# jax 0.10.2's make_jaxpr(threaded)(np.ones(3, np.float32)), target renamed
JAX_THREADED = """\
{ lambda ; a:f32[3]. let
    b:Tok = create_token 
    c:Tok d:f32[3] = ffi_call[
      attributes=()
      custom_call_api_version=4
      has_side_effect=True
      input_layouts=((), (0,))
      input_output_aliases=()
      legacy_backend_config=None
      output_layouts=((), (0,))
      result_avals=(AbstractToken(), ShapedArray(float32[3]))
      target_name=astjax_t_record
      vmap_method=None
    ] b a
    e:f32[3] = add a 1.0:f32[]
    _:Tok f:f32[3] = ffi_call[
      attributes=()
      custom_call_api_version=4
      has_side_effect=True
      input_layouts=((), (0,))
      input_output_aliases=()
      legacy_backend_config=None
      output_layouts=((), (0,))
      result_avals=(AbstractToken(), ShapedArray(float32[3]))
      target_name=astjax_t_record
      vmap_method=None
    ] c e
    g:f32[3] = add d f
  in (g,) }"""


def test_token_program_prints_jax_jaxpr(lib):
    assert str(astjax.make_jaxpr(threaded)(np.ones(3, np.float32))) == JAX_THREADED
    # jax 0.10.2: make_jaxpr(lambda x: lax.after_all(lax.create_token(), lax.create_token()))
    assert str(astjax.make_jaxpr(lambda x: lax.after_all(lax.create_token(),
                                                         lax.create_token()))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:Tok = create_token 
    c:Tok = create_token 
    d:Tok = after_all b c
  in (d,) }"""


def test_tokens_order_the_calls_eager_and_jit(lib):
    x = np.ones(3, np.float32)
    _journal(lib)
    for f in (threaded, astjax.jit(threaded)):   # jax 0.10.2: [3, 3, 3], journal 1 1 1 2 2 2
        np.testing.assert_array_equal(f(x), [3.0, 3.0, 3.0])
        assert _journal(lib) == [1.0] * 3 + [2.0] * 3
    hlo = astjax.jit(threaded).lower(x).as_text()
    calls = [ln for ln in hlo.splitlines() if "custom_call" in ln]
    assert len(calls) == 2 and all("!stablehlo.token" in ln for ln in calls)
    assert "stablehlo.create_token" in hlo
    # the second call reads the token the first returned
    first = calls[0].split("=")[0].strip().split(":")[0]
    assert f"({first}#0," in calls[1]


def test_after_all_joins_tokens_and_source_runs_again(lib):
    rec = _record()

    def joined(x):
        t1, a = rec(lax.create_token(), x)
        t2, b = rec(lax.create_token(), x * 2)
        _, c = rec(lax.after_all(t1, t2), a + b)
        return c
    x = np.ones(3, np.float32)
    _journal(lib)
    np.testing.assert_array_equal(astjax.jit(joined)(x), [3.0] * 3)
    assert _journal(lib)[-3:] == [3.0] * 3   # the joined call runs after both
    src = astjax.source(joined, x)
    assert "after_all" in src and "create_token" in src
    np.testing.assert_array_equal(astjax.jit(astjax.source_function(joined, x))(x), [3.0] * 3)
    _journal(lib)


def test_eager_tokens_are_host_tokens(lib):
    t = lax.create_token()
    assert isinstance(t, Token) and t.aval is astjax.core.abstract_token
    assert isinstance(astjax.core.abstract_token, AbstractToken)
    t2, y = _record()(t, np.full(3, 7.0, np.float32))
    assert isinstance(t2, Token)
    assert isinstance(lax.after_all(t, t2), Token)
    np.testing.assert_array_equal(y, [7.0] * 3)
    assert _journal(lib) == [7.0] * 3
    with pytest.raises(ValueError, match="after_all takes tokens only"):
        lax.after_all(t, np.float32(1))


def test_unused_side_effect_call_runs_in_order(lib):
    log = ffi.ffi_call("astjax_t_log", (), has_side_effect=True)

    def two(x):
        log(x)
        log(x + 1.0)
        return x
    _journal(lib)
    # jax 0.10.2: both calls run, in program order: journal 1 1 1 2 2 2
    np.testing.assert_array_equal(astjax.jit(two)(np.ones(3, np.float32)), [1.0] * 3)
    assert _journal(lib) == [1.0] * 3 + [2.0] * 3
    assert [e.primitive.name for e in astjax.make_jaxpr(two)(np.ones(3, np.float32)).eqns] == [
        "ffi_call", "add", "ffi_call"]


def test_token_at_the_jit_boundary_and_under_vmap(lib):
    """jit returns a Token object for a token result, as JAX does (the call runs);
    vmap of a token-threading call fails in JAX too (AttributeError /
    TracerArrayConversionError): a located error."""
    x = np.ones(3, np.float32)
    _journal(lib)
    t, y = astjax.jit(lambda v: _record()(lax.create_token(), v))(x)
    assert isinstance(t, Token) and _journal(lib) == [1.0] * 3
    np.testing.assert_array_equal(y, x)
    rec = ffi.ffi_call("astjax_t_record", (astjax.core.abstract_token, F32x3),
                       has_side_effect=True, vmap_method="sequential")
    with pytest.raises(NotImplementedError, match="token") as e:
        astjax.vmap(lambda v: rec(lax.create_token(), v)[1])(np.ones((2, 3), np.float32))
    assert isinstance(e.value, AstjaxError)
    _journal(lib)
