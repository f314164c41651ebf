# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() missing 1 required positional argument: 'y'
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/core.py:512: ag__factory.<locals>.<lambda>() missing 1 required positional argument: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cond(True, lambda x, y: x, lambda x: x, 1.0)  # error
