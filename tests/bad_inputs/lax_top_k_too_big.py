# expect: AstjaxError ValueError
# jax: ValueError (ValueError): k argument to top_k must be no larger than size along axis; got k=5 with shape=[3] and axis=0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.top_k(jnp.ones(3), 5)  # error
