# expect: AstjaxError ValueError
# jax: ValueError (ValueError): data type <class 'numpy.int32'> not inexact
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.finfo(jnp.int32)  # error
