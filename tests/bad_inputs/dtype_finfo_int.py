# expect: AstjaxError ValueError
# jax: ValueError (ValueError): data type <class 'numpy.int32'> not inexact
# xfail: jnp.finfo is numpy's own finfo: numpy's raw ValueError (the same one JAX lets through) escapes without a location
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.finfo(jnp.int32)  # error
