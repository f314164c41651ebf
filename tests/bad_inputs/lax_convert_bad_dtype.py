# expect: AstjaxError TypeError
# jax: TypeError (TypeError): data type 'notadtype' not understood
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/dtypes.py:58: data type 'notadtype' not understood
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.convert_element_type(jnp.ones(3), 'notadtype')  # error
