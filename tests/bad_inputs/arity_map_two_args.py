# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() missing 1 required positional argument: 'y'
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/primitives/scan.py:604: <lambda>() missing 1 required positional argument: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.map(lambda x, y: x, jnp.ones(3))  # error
