# expect: DTypeError TypeError
# jax: TypeError (TypeError): lax.add requires arguments to have the same dtypes, got float32, int32. (Tip: jnp.add is a similar function that does automatic type promotion on inputs).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.add(jnp.ones(2), jnp.ones(2, dtype=jnp.int32))  # error
