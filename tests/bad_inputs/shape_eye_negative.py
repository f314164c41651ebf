# expect: AstjaxError ValueError
# jax: ValueError (ValueError): negative dimensions are not allowed, got -2 and None
# xfail: R12: the shape rule does not validate its input (negative dimension / duplicate axis / negative padding), so XLA's StableHLO parser rejects the program with a raw JaxRuntimeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.eye(-2)  # error
