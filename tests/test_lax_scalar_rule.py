"""JAX's Python-scalar rule of the lax wrappers holds for every caller: a Python scalar
is a weak value of its kind's default dtype and the primitive's dtype rule decides
(`lax.add(x_f32, 1)` is JAX's TypeError), whichever module the call comes from. astjax's
own code passes a number of an operand's dtype with `primitives.base.weak_like`.

The whole rule (every binary wrapper, clamp and pad, each dtype, each kind of scalar,
either side, x64 on and off) is swept against JAX by `tests/fuzz/scalar_rule_sweep.py`;
the API fuzzer's replay (tests/test_api_fuzz.py, `lax-scalar` cases) pins it against
stored JAX results."""
import ml_dtypes
import numpy as np
import pytest

import astjax
from astjax import lax
from astjax.primitives.base import weak_like

F32 = np.array([1.0, -2.0], np.float32)


def _call_from_module(module_name, code, **names):
    """Run `code` (an expression) with globals whose `__name__` is `module_name`."""
    return eval(code, {"__name__": module_name, "lax": lax, **names})


@pytest.mark.parametrize("module", ["__main__", "astjax.numpy.fake", "astjax.frontend.fake"])
@pytest.mark.parametrize("code,error", [
    ("lax.add(x, 1)", TypeError),           # int32 beside float32
    ("lax.max(x, True)", TypeError),
    ("lax.lt(1j, x)", TypeError),
    ("lax.pad(x, 0, [(1, 0, 0)])", TypeError),
    ("lax.clamp(0, x, 1)", TypeError),
    ("lax.add(x, 1.5)", None),              # float32 (x64 off) beside float32
])
def test_rule_does_not_depend_on_the_calling_module(module, code, error):
    if error is None:
        out = _call_from_module(module, code, x=F32)
        assert (out.dtype, out.weak_type) == (np.float32, False)
        staged = astjax.jit(lambda x: _call_from_module(module, code, x=x))(F32)
        assert staged.dtype == np.float32
    else:
        with pytest.raises(error):
            _call_from_module(module, code, x=F32)
        with pytest.raises(error):
            astjax.jit(lambda x: _call_from_module(module, code, x=x))(F32)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16, np.int8, np.uint32])
def test_weak_like_takes_the_operand_dtype(dtype):
    x = np.array([1, 2], dtype)
    out = lax.mul(x, weak_like(2, x))
    assert (out.dtype, out.weak_type) == (np.dtype(dtype), False)
    np.testing.assert_array_equal(np.asarray(out, np.float64), [2, 4])
    with pytest.raises(TypeError):   # the bare scalar: float32 / int32 beside `dtype`
        lax.mul(x, 2.0 if np.dtype(dtype).kind == "f" else 2.5)


def test_weak_like_keeps_a_weak_operand_weak():
    def f(s):
        return lax.add(s, weak_like(1, s))
    out = astjax.jit(f)(2.0)
    assert (out.dtype, out.weak_type, float(out)) == (np.float32, True, 3.0)
