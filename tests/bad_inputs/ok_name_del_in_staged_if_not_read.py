# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp


def f(x):
    G = x * 2
    if x.sum() > 0:
        del G            # deleted on one path, never read after: Python's answer
    return x + 1


assert astjax.jit(f)(jnp.ones(2)).tolist() == [2.0, 2.0]
