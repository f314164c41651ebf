# expect: AstjaxError TypeError
# jax: TypeError (TypeError): lax.fori_loop: body_fun argument should be callable.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.fori_loop(0, 3, 1.0, 0.0)  # error
