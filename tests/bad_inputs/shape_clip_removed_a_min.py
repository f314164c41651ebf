# expect: ArityError TypeError
# jax: TypeError (TypeError): clip() got an unexpected keyword argument 'a_min'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.clip(jnp.ones(3), a_min=0.0)  # error
