# expect: AstjaxError IndexError
# jax: IndexError (IndexError): boolean index did not match shape of indexed array in index 0: got (2,), expected [3]
# xfail: numpy/indexing.py does not check a concrete boolean mask's shape against the array (silently indexes); JAX raises IndexError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(3)[jnp.array([True, False])]  # error
