# expect: AstjaxError ValueError
# jax: ValueError (ValueError): top_k is not compatible with complex inputs.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.top_k(jnp.array([1 + 2j, 3 - 1j]), 1)  # error
