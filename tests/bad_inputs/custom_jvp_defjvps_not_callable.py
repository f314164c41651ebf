# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'int' object is not callable
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

f = astjax.custom_jvp(lambda x: x * 2)
f.defjvps(3)  # error
astjax.jvp(f, (1.0,), (1.0,))
