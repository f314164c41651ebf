# expect: AstjaxError ValueError
# jax: ValueError (ValueError): interior padding in padding_config must be nonnegative, got padding_config ((1, 1, -1),)
# xfail: R12: the shape rule does not validate its input (negative dimension / duplicate axis / negative padding), so XLA's StableHLO parser rejects the program with a raw JaxRuntimeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.pad(jnp.ones(3), 0.0, [(1, 1, -1)])  # error
