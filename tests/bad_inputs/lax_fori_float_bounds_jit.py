# expect: DTypeError TypeError
# jax: TypeError (TypeError): lower and upper arguments to fori_loop must have equal types, got int32 and float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, hi):
    return lax.fori_loop(0, hi, lambda i, c: c + i, x)  # error

astjax.jit(f)(1.0, 3.5)
