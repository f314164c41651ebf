# expect: LoopCarryError TypeError
# jax: TypeError (TypeError): while_loop body function carry input and carry output must have equal types, but they differ:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.while_loop(lambda c: c.sum() < 3, lambda c: jnp.concatenate([c, c]), jnp.ones(1))  # error
