# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Output character 'k' did not appear in the input
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->k', jnp.ones((2, 3)))  # error
