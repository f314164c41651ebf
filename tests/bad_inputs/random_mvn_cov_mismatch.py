# expect: AstjaxError ValueError
# jax: ValueError (ValueError): multivariate_normal requires cov.shape == (..., n, n) for n=3, but got cov.shape == (2, 2).
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.multivariate_normal(random.key(0), jnp.zeros(3), jnp.eye(2))  # error
