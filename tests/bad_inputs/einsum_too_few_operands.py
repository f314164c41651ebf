# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Number of einsum subscripts, 2, must be equal to the number of operands, 1.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij,jk->ik', jnp.ones((2, 3)))  # error
