# expect: LoopCarryError TypeError
# jax: TypeError (TypeError): scan body function carry input and carry output must have the same pytree structure, but they differ:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c, x: ((c, c), x), 0.0, jnp.ones(3))  # error
