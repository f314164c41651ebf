# expect: AstjaxError TypeError
# jax: TypeError (TypeError): grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got bool. If you want to use Boolean- or integer-valued inputs
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return 1.0

astjax.grad(f)(True)  # error
