# expect: AstjaxError TypeError
# jax: TypeError (TypeError): the first argument must be callable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

f = astjax.custom_jvp(lambda x: x * 2)
f.defjvp(3)  # error
astjax.jvp(f, (1.0,), (1.0,))
