# expect: AstjaxError TypeError
# jax: TypeError (TypeError): while_loop body function carry input and carry output must have the same pytree structure, but they differ:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.while_loop(lambda c: c < 3, lambda c: (c + 1, c), 0)  # error
