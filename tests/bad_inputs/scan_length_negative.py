# expect: AstjaxError ValueError
# jax: Exception (MLIRError): Invalid type:
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.scan(lambda c, x: (c + 1.0, c), 0.0, None, length=-1)  # error
