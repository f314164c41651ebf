# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Indexer must have integer or boolean type, got indexer with type float64
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.zeros(3).at[1.5].set(1.0)  # error
