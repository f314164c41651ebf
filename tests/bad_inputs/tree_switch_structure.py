# expect: AstjaxError TypeError
# jax: TypeError (TypeError): switch branch outputs must have the same pytree structure, but they differ:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.switch(0, [lambda x: x, lambda x: [x]], 1.0)  # error
