# expect: AstjaxError ValueError
# jax: ValueError (ValueError): multivariate_normal requires mean.ndim >= 1, got mean.ndim == 0
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.multivariate_normal(random.key(0), jnp.asarray(0.0), jnp.eye(1))  # error
