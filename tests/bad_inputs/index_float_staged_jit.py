# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Indexer must have integer or boolean type, got indexer with type float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x[x.sum()]  # error

astjax.jit(f)(jnp.ones(3))
