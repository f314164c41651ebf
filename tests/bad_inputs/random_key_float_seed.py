# expect: DTypeError TypeError
# jax: TypeError (TypeError): PRNG key seed must be an integer; got JitTracer(~float32[])
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.PRNGKey(1.5)  # error
