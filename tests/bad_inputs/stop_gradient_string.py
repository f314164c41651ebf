# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Argument 'a' of type <class 'str'> is not a valid JAX type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.stop_gradient('a')  # error
