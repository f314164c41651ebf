# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(3)[[0.5, 1.5]]  # error
