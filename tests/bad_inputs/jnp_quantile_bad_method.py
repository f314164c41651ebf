# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.quantile(jnp.ones(3), 0.5, method='bogus')  # error
