# expect: AstjaxError ValueError
# jax: ValueError (ValueError): interior padding in padding_config must be nonnegative, got padding_config ((1, 1, -1),)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.pad(jnp.ones(3), 0.0, [(1, 1, -1)])  # error
