# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Invalid integer data type 'f'.
# xfail: jnp.iinfo is numpy's own iinfo: numpy's raw ValueError (the same one JAX lets through) escapes without a location
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.iinfo(jnp.float32)  # error
