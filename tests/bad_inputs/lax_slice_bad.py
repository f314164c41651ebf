# expect: ShapeError TypeError
# jax: TypeError (TypeError): slice slice_sizes must be greater than or equal to zero, got slice_sizes of (np.int64(-1),).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.slice(jnp.ones(5), (2,), (1,))  # error
