# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Expected a callable value, got None
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.vmap(None)  # error
