# expect: AstjaxError ValueError
# jax: ValueError (ValueError): inconsistent size for core dimension 'm': 3 vs 2 on vectorized function with excluded=frozenset() and signature='(m,m),(m)->(m)'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.solve(jnp.eye(2), jnp.ones(3))  # error
