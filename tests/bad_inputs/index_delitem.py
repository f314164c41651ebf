# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): __delitem__
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.zeros(3)
del x[0]  # error
