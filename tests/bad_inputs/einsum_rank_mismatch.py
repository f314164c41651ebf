# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Einstein sum subscript 'ijk' does not contain the correct number of indices for operand 0.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ijk->i', jnp.ones((2, 3)))  # error
