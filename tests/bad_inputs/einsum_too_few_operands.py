# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Number of einsum subscripts, 2, must be equal to the number of operands, 1.
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/numpy/contractions.py:174: substring not found
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij,jk->ik', jnp.ones((2, 3)))  # error
