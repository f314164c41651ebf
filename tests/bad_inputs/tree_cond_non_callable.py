# expect: AstjaxError TypeError
# jax: TypeError (TypeError): lax.cond: true_fun and false_fun arguments should be callable.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cond(True, 1.0, 2.0)  # error
