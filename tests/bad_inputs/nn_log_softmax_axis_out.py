# expect: AxisError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of dimension 2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.nn.log_softmax(jnp.ones((2, 3)), axis=2)  # error
