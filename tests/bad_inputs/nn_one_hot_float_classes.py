# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'float' object cannot be interpreted as an integer
# xfail: nn.one_hot accepts a float num_classes (int() truncates 2.5 silently); JAX raises TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.nn.one_hot(jnp.array([0, 1]), 2.5)  # error
