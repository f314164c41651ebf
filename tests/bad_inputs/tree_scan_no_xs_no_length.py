# expect: AstjaxError ValueError
# jax: ValueError (ValueError): scan got no values to scan over and `length` not provided.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c, x: (c, x), 0.0, None)  # error
