# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Indexer must have integer or boolean type, got indexer with type float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(3)[jnp.array([1.0])]  # error
