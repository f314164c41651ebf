# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'float' object is not iterable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.sum(jnp.ones((2, 3)), axis=1.0)  # error
