# expect: AstjaxError TypeError
# jax: TypeError (TypeError): broadcast_in_dim shape must have every element be nonnegative, got (-1, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.broadcast(jnp.ones(3), (-1,))  # error
