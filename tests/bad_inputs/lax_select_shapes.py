# expect: ShapeError TypeError
# jax: TypeError (TypeError): select cases must have the same shapes, got [(2,), (3,)].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.select(jnp.ones(3) > 0, jnp.ones(3), jnp.zeros(2))  # error
