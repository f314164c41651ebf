# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.where(jnp.isnan(x), 0.0, x)

assert float(astjax.jit(f)(float("nan"))) == 0.0
