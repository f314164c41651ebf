# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Cannot lower jaxpr with verifier errors:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.reshape(jnp.ones(6), (4,))  # error
