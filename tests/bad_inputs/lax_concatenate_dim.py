# expect: ShapeError TypeError
# jax: TypeError (TypeError): Cannot concatenate arrays with different numbers of dimensions: got (2,), (2, 2).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.concatenate([jnp.ones(2), jnp.ones((2, 2))], 0)  # error
