# expect: AstjaxError IndexError
# jax: IndexError (IndexError): an index can only have a single ellipsis ('...')
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones((2, 3))[..., 0, ...]  # error
