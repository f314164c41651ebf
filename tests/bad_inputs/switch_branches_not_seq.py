# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'function' object is not iterable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.switch(0, lambda x: x, jnp.ones(3))  # error
