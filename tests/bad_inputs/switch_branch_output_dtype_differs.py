# expect: LoopCarryError TypeError
# jax: TypeError (TypeError): switch branches must have equal output types but they differ.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.switch(1, [lambda x: x, lambda x: x.astype(jnp.int32)], jnp.ones(2))  # error
