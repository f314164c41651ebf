# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'int' object is not iterable
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.switch(0, 3, jnp.ones(3))  # error
