# expect: ShapeError TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.ones((2, 3))
y = jnp.dot(x, x)  # error
