# expect: LoopCarryError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
# xfail: TODO located at /work/wt/api-errors/tests/bad_inputs/tree_python_while_carry_shape.py:10:5, expected line [11]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    while x.sum() < 10:
        x = jnp.concatenate([x, x])  # error
    return x

astjax.jit(f)(jnp.ones(2))
