# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Output character 'k' did not appear in the input
# xfail: numpy/contractions.py: the einsum spec parser does not validate the spec (operand count / output labels) and fails with a raw ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->k', jnp.ones((2, 3)))  # error
