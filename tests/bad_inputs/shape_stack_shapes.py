# expect: AstjaxError ValueError
# jax: ValueError (ValueError): All input arrays must have the same shape. Got (2,), (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.stack([jnp.ones(2), jnp.ones(3)])  # error
