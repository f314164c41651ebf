# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() takes 1 positional argument but 2 were given
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/core.py:512: ag__factory.<locals>.<lambda>() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c: (c, c), 0.0, jnp.ones(3))  # error
