# expect: AstjaxError IndexError
# jax: IndexError (IndexError): an index can only have a single ellipsis ('...')
# xfail: TODO ArgumentError is not a IndexError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones((2, 3))[..., 0, ...]  # error
