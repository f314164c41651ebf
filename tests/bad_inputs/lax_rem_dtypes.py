# expect: DTypeError TypeError
# jax: TypeError (TypeError): lax.rem requires arguments to have the same dtypes, got float32, int32.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.rem(jnp.ones(3), jnp.ones(3, jnp.int32))  # error
