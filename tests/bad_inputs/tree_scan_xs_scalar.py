# expect: AstjaxError ValueError
# jax: ValueError (ValueError): scan got value with no leading axis to scan over: 1.0.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c, x: (c, x), 0.0, 1.0)  # error
