# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): __delitem__
# xfail: TODO raw TypeError at /work/wt/api-errors/tests/bad_inputs/index_delitem.py:10: 'Array' object doesn't support item deletion
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.zeros(3)
del x[0]  # error
