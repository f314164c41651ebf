# expect: AstjaxError ValueError
# jax: ValueError (ValueError): length of padding_config must equal the number of axes of operand, got padding_config ((1, 1, 0), (0, 0, 0)) for operand shape (3,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.pad(jnp.ones(3), 0.0, [(1, 1, 0), (0, 0, 0)])  # error
