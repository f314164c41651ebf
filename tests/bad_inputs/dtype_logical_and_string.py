# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function logical_and at 0x7f0110c30f40> as an abstract array. The problematic value is of type <class 'str'> and was passed to t
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.logical_and(jnp.ones(2), 'x')  # error
