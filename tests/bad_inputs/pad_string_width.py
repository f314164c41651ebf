# expect: AstjaxError TypeError
# jax: TypeError (TypeError): `pad_width` must be of integral type.
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/numpy/shapes.py:337: invalid literal for int() with base 10: np.str_('a')
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.pad(jnp.ones(3), 'a')  # error
