# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

s = astjax.eval_shape(lambda x: x.sum(0), jnp.ones((2, 3)))
assert s.shape == (3,) and s.dtype == jnp.float32
