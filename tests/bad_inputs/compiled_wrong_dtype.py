# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Argument types differ from the types for which this computation was compiled. Perhaps you are calling the compiled executable with a different enable_x64 mode t
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

c = astjax.jit(f).lower(jnp.ones(3)).compile()
c(jnp.ones(3, jnp.int32))  # error
