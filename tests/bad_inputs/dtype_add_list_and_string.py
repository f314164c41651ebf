# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function add at 0x7f0110c0f060> as an abstract array. The problematic value is of type <class 'str'> and was passed to the funct
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.add(jnp.ones(2), 'x')  # error
