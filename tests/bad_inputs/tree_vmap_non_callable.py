# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Expected a callable value, got None
# xfail: vmap(None) is astjax's decorator-factory form (batching_api.vmap(fun=None, ...) returns a partial), so the error comes only when the partial is used; JAX raises TypeError at once
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.vmap(None)  # error
