# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): expected deg >= 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.polyfit(jnp.arange(3.0), jnp.arange(3.0), -1)  # error
