# expect: AstjaxError TypeError
# jax: TypeError (TypeError): broadcast_in_dim shape must have every element be nonnegative, got (2, -3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.full((2, -3), 1.0)  # error
