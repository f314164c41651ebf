# expect: AstjaxError TypeError
# jax: TypeError (TypeError): while_loop body function carry input and carry output must have the same pytree structure, but they differ:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.while_loop(lambda c: c[0] < 3, lambda c: c[0] + 1, (0, 0))  # error
