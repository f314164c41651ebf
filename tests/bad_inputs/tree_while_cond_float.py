# expect: AstjaxError TypeError
# jax: TypeError (TypeError): cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(float32[], weak_type=True)].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.while_loop(lambda c: c, lambda c: c - 1.0, 3.0)  # error
