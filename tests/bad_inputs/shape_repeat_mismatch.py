# expect: AstjaxError ValueError
# jax: ValueError (ValueError): operands could not be broadcast together with remapped shapes [original->remapped]: (2,)  and requested shape (3,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.repeat(jnp.ones(3), jnp.array([1, 2]))  # error
