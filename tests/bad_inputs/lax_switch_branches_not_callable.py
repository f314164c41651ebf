# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): lax.switch: branches argument should be a sequence of callables.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.switch(0, [jnp.sin, 3.0], 1.0)  # error
