# expect: LoopCarryError TypeError
# jax: TypeError (TypeError): scan body function carry input and carry output must have the same pytree structure, but they differ:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.fori_loop(0, 3, lambda i, c: (c, c), 0.0)  # error
