# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Number of samples, -3, must be non-negative.
# xfail: R12: the shape rule does not validate its input (negative dimension / duplicate axis / negative padding), so XLA's StableHLO parser rejects the program with a raw JaxRuntimeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linspace(0.0, 1.0, -3)  # error
