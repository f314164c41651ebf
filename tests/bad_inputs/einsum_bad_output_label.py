# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Output character 'k' did not appear in the input
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/numpy/contractions.py:174: substring not found
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->k', jnp.ones((2, 3)))  # error
