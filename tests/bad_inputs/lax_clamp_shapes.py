# expect: ShapeError TypeError
# jax: TypeError (TypeError): clamp requires min.shape == operand.shape or min.shape == (), got min.shape=(2,), operand.shape=(3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.clamp(jnp.zeros(2), jnp.ones(3), jnp.ones(4))  # error
