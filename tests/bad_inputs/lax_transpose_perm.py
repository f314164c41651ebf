# expect: AstjaxError TypeError
# jax: TypeError (TypeError): transpose permutation isn't a permutation of operand dimensions, got permutation (0,) for operand shape (2, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.transpose(jnp.ones((2, 3)), (0,))  # error
