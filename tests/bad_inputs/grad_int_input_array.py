# expect: AstjaxError TypeError
# jax: TypeError (TypeError): grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32. If you want to use Boolean- or integer-valued input
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sum(x * 2)

astjax.grad(f)(jnp.arange(3))  # error
