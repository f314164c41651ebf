# expect: AstjaxError ValueError
# jax: ValueError (ValueError): quantile does not support complex input, as the operation is poorly defined.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.median(jnp.array([1 + 2j, 3 - 1j]))  # error
