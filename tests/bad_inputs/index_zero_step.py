# expect: AstjaxError ValueError
# jax: ValueError (ValueError): slice step cannot be zero
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(5)[::0]  # error
