# expect: AstjaxError ValueError
# jax: ValueError (ValueError): attempt to get argmax of an empty sequence
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.argmax(jnp.zeros(0))  # error
