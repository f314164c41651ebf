# expect: LoopCarryError TypeError
# jax: TypeError (TypeError): cond branches must have equal output types but they differ.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cond(True, lambda x: x, lambda x: x[:1], jnp.ones(2))  # error
