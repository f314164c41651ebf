# expect: AstjaxError ValueError
# jax: ValueError (ValueError): duplicate value in 'axis': (1, -1)
# xfail: R12: the shape rule does not validate its input (negative dimension / duplicate axis / negative padding), so XLA's StableHLO parser rejects the program with a raw JaxRuntimeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.mean(jnp.ones((2, 3)), axis=(1, -1))  # error
