# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Subscripts can only contain one '->'.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->j->i', jnp.ones((2, 3)))  # error
