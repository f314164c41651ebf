# expect: AstjaxError IndexError
# jax: IndexError (IndexError): list assignment index out of range
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.dynamic_index_in_dim(jnp.ones(3), 0, axis=2)  # error
