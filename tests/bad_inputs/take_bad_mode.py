# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Invalid mode 'bogus' for np.take
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.take(jnp.ones(3), jnp.array([0]), mode='bogus')  # error
