# expect: AstjaxError TypeError
# jax: TypeError (TypeError): `pad_width` must be of integral type.
# xfail: numpy/shapes.py:337: jnp.pad does not type-check pad_width and fails with a raw ValueError from int()
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.pad(jnp.ones(3), 'a')  # error
