# expect: AstjaxError TypeError
# jax: TypeError (TypeError): grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32. For differentiation of functions with integer outputs, use j
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sum(x).astype(jnp.int32)

astjax.grad(f)(jnp.ones(3))  # error
