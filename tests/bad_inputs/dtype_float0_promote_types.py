# expect: AstjaxError ValueError
# jax: ValueError (ValueError): dtype=dtype([('float0', 'V')]) is not a valid dtype for JAX type promotion.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.promote_types(astjax.dtypes.float0, jnp.float32)  # error
