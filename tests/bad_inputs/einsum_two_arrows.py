# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Subscripts can only contain one '->'.
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/numpy/contractions.py:116: too many values to unpack (expected 2)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->j->i', jnp.ones((2, 3)))  # error
