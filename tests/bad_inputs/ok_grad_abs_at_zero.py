# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(astjax.grad(jnp.abs)(0.0)) == 1.0
