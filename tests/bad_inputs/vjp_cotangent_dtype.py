# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got int32[3], but expected float32[3] because the corresponding output of the differentiate
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

y, pullback = astjax.vjp(f, jnp.ones(3))
pullback(jnp.ones(3, dtype=jnp.int32))  # error
