# expect: AstjaxError TypeError
# jax: TypeError (TypeError): data type 'notadtype' not understood
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.convert_element_type(jnp.ones(3), 'notadtype')  # error
