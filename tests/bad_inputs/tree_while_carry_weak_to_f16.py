# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


out = lax.while_loop(lambda c: c < 3, lambda c: c + jnp.float16(1.5), 0.0)
assert out.dtype == jnp.float16 and float(out) == 3.0
