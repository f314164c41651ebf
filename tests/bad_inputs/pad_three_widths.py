# expect: AstjaxError ValueError
# jax: ValueError (ValueError): jnp.pad: pad_width with nd=1 has unsupported shape (1, 3). Valid shapes are (1, 2), (1, 2), (2,), (1,), or ().
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.pad(jnp.ones(3), ((1, 1, 1),))  # error
