# expect: DTypeError TypeError
# jax: TypeError (TypeError): JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.split(jnp.array([1.0, 2.0]))  # error
