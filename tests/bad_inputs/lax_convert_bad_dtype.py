# expect: AstjaxError TypeError
# jax: TypeError (TypeError): data type 'notadtype' not understood
# xfail: dtypes.py:58: an unknown dtype name reaches numpy's raw TypeError inside astjax
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.convert_element_type(jnp.ones(3), 'notadtype')  # error
