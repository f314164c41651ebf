# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): __delitem__
# xfail: Array has no __delitem__ hook: `del x[0]` is Python's raw TypeError; JAX raises AttributeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.zeros(3)
del x[0]  # error
