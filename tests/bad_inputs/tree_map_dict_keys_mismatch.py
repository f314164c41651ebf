# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): pytree structure error: different pytree metadata at key path
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.tree.map(lambda a, b: a + b, {"a": 1.0}, {"b": 2.0})  # error
