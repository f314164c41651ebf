# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Array inputs to associative_scan must have the same first dimension. (saw: [(3,), (4,)])
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.associative_scan(lambda a, b: a + b, (jnp.ones(3), jnp.ones(4)))  # error
