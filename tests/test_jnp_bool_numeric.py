"""jnp's remainder / fmod / floor_divide / divmod compute bool operands as int32, as JAX's
`promote_args_numeric` (API fuzz seed 31828: `jnp.remainder(True, True)` was a
DTypeError). Expected values are JAX 0.10.2's (x64 off and on give the same)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

A, B = np.array([True, False]), np.array([True, True])
# name -> JAX 0.10.2's (dtype, values) of fn(A, B); its result for (True, True) is the first
JAX = {"remainder": ("int32", [0, 0]), "mod": ("int32", [0, 0]), "fmod": ("int32", [0, 0]),
       "floor_divide": ("int32", [1, 0])}


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", sorted(JAX))
def test_bool_operands_are_int32(name, x64):
    dtype, values = JAX[name]
    with astjax.enable_x64(x64):
        out = getattr(jnp, name)(A, B)
        scalar = getattr(jnp, name)(True, True)
    assert (str(out.dtype), out.weak_type, np.asarray(out).tolist()) == (dtype, False, values)
    assert (str(scalar.dtype), scalar.weak_type, int(scalar)) == (dtype, False, values[0])


def test_divmod_of_bools():
    q, r = jnp.divmod(A, B)
    assert (str(q.dtype), np.asarray(q).tolist(), np.asarray(r).tolist()) == ("int32", [1, 0], [0, 0])
