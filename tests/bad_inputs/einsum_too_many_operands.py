# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Number of einsum subscripts, 1, must be equal to the number of operands, 2.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->i', jnp.ones((2, 3)), jnp.ones(3))  # error
