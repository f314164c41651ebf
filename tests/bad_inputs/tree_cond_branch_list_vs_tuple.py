# expect: StructureError TypeError
# jax: TypeError (TypeError): cond branch outputs must have the same pytree structure, but they differ:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cond(True, lambda x: [x, x], lambda x: (x, x), 1.0)  # error
