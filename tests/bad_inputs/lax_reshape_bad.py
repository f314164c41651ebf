# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Cannot lower jaxpr with verifier errors:
# xfail: primitives/structural.py:248: lax.reshape of the wrong size raises ShapeError (a TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.reshape(jnp.ones(6), (4,))  # error
