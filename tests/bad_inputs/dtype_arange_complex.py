# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Passing complex start/stop/step to jnp.arange is no longer supported starting in JAX v0.10.0.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(1j)  # error
