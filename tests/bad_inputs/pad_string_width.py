# expect: AstjaxError TypeError
# jax: TypeError (TypeError): `pad_width` must be of integral type.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.pad(jnp.ones(3), 'a')  # error
