"""lax dtype rules found by the API fuzzer (seeds 42612, 42778), against JAX 0.10.2.

`lax.bitcast_convert_type` narrows a 64-bit `new_dtype` without x64 (with JAX's
warning) before sizing the result: `int32[2] -> float64` was a float64 scalar of the two
words (JAX: float32[2]), a silent difference. `dot_general`'s `preferred_element_type`
may not be narrower than a non-floating input type (JAX's TypeError, XLA's MaybeUpcast).
"""
import numpy as np
import pytest

import astjax as jax
from astjax import lax

# (operand dtype, shape, new dtype) -> JAX's result (dtype, shape), x64 off
BITCAST = [
    (np.uint64, (2, 4), np.int64, ("int32", (2, 4))),
    (np.float64, (2, 4), np.int64, ("int32", (2, 4))),
    (np.int64, (2,), np.float64, ("float32", (2,))),
    (np.float32, (2,), np.int64, ("int32", (2,))),
    (np.int32, (2,), np.uint64, ("uint32", (2,))),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("src,shape,new,want", BITCAST, ids=[f"{np.dtype(c[0])}-{np.dtype(c[2])}" for c in BITCAST])
def test_bitcast_narrows_new_dtype_as_jax(src, shape, new, want, jit):
    f = lambda a: lax.bitcast_convert_type(a, new)   # noqa: E731
    with pytest.warns(UserWarning, match="truncated"):
        out = (jax.jit(f) if jit else f)(np.ones(shape, src))
    assert (str(out.dtype), out.shape) == want


# (input dtype, preferred dtype) -> JAX 0.10.2 with x64 on: result dtype or "TypeError"
PREFERRED = [
    (np.int64, np.float32, "TypeError"), (np.int64, np.int32, "TypeError"),
    (np.float64, np.float32, "float32"), (np.int32, np.float32, "float32"),
    (np.int32, np.int16, "TypeError"), (np.float32, np.int32, "int32"),
    (np.int8, np.float16, "float16"), (np.float32, "bfloat16", "bfloat16"),
    (np.int32, np.float64, "float64"), (np.uint8, np.int32, "int32"),
    (np.int8, np.uint32, "uint32"), (np.bool_, np.int32, "int32"),
    (np.float16, np.float32, "float32"), (np.complex64, np.float32, "float32"),
]


@pytest.mark.parametrize("src,pref,want", PREFERRED,
                         ids=[f"{np.dtype(s)}-{p if isinstance(p, str) else np.dtype(p)}" for s, p, _ in PREFERRED])
def test_dot_general_preferred_element_type_as_jax(src, pref, want):
    pref = jax.numpy.bfloat16 if pref == "bfloat16" else pref
    with jax.enable_x64(True):
        x = np.ones((2, 2), src)
        f = lambda: lax.dot_general(x, x, (((1,), (0,)), ((), ())),  # noqa: E731
                                    preferred_element_type=pref)
        if want == "TypeError":
            with pytest.raises(TypeError, match="must not be narrower"):
                f()
        else:
            assert str(f().dtype) == want
