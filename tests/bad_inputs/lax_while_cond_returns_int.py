# expect: JAXTypeError TypeError
# jax: TypeError (TypeError): cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(int32[], weak_type=True)].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.while_loop(lambda c: c, lambda c: c - 1, 3)  # error
