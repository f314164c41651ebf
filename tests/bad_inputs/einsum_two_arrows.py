# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Subscripts can only contain one '->'.
# xfail: numpy/contractions.py: the einsum spec parser does not reject two '->' and fails with a raw ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->j->i', jnp.ones((2, 3)))  # error
