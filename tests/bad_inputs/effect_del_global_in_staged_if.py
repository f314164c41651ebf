# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp

G = 2.0


def f(x):
    global G
    if x.sum() > 0:
        del G  # error
    return x


astjax.jit(f)(jnp.ones(2))
