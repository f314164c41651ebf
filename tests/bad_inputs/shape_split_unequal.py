# expect: AstjaxError ValueError
# jax: ValueError (ValueError): array split does not result in an equal division: rest is 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.split(jnp.ones(5), 2)  # error
