# expect: AstjaxError TypeError
# jax: TypeError (TypeError): scan body output must be a pair, got float32[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c, x: c + x, 0.0, jnp.ones(3))  # error
