# expect: AstjaxError ValueError
# jax: ValueError (ValueError): dtype=dtype([('float0', 'V')]) is not a valid dtype for JAX type promotion.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.result_type(np.zeros(2, astjax.dtypes.float0), 1.0)  # error
