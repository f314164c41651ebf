# expect: LoopCarryError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, n):
    d = {"a": x}
    for i in range(n):  # error
        d["a"] = jnp.concatenate([d["a"], x])
    return d["a"]

astjax.jit(f)(jnp.ones(3), 2)
