# expect: AstjaxError ValueError
# jax: ValueError (ValueError): duplicate value in 'axis': (0, 0)
# xfail: R12: the shape rule does not validate its input (negative dimension / duplicate axis / negative padding), so XLA's StableHLO parser rejects the program with a raw JaxRuntimeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.sum(jnp.ones((2, 3)), axis=(0, 0))  # error
