# expect: AstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): Unimplemented padding mode 'bogus' for np.pad.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.pad(jnp.ones(3), 1, mode="bogus")  # error
