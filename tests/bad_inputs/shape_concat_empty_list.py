# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Need at least one array to concatenate.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.concatenate([])  # error
