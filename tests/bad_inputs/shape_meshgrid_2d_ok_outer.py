# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function outer at 0x7f0110c6f240> as an abstract array. The problematic value is of type <class 'str'> and was passed to the fun
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.outer(jnp.ones((2, 2)), 'a')  # error
