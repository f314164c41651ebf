# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Size of label 'j' for operand 1 (3) does not match previous terms (4).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij,jk->ik', jnp.ones((2, 3)), jnp.ones((4, 5)))  # error
