# expect: AstjaxError ValueError
# jax: ValueError (ValueError): index can't contain negative values
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.pad(jnp.ones(3), -1)  # error
