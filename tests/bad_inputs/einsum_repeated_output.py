# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Output character 'i' appeared more than once in the output.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->ii', jnp.ones((2, 3)))  # error
