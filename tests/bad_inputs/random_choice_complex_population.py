# expect: AstjaxError TypeError
# jax: TypeError (TypeError): int() argument must be a string, a bytes-like object or a real number, not 'complex'
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.choice(random.key(0), 5j, (3,))  # error
