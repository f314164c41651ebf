# expect: AstjaxError ValueError
# jax: ValueError (ValueError): cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) and dimensions=(0,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.squeeze(jnp.ones((2, 3)), axis=0)  # error
