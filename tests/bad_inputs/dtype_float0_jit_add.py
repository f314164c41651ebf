# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Called add with a float0 array. float0s do not support any operations by design because they are not compatible with non-trivial vector spaces. No implicit dtyp
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(x, i):
    return x * 1.0

def h(a):
    return a + 1  # error

g = astjax.grad(f, argnums=(0, 1), allow_int=True)(1.0, 3)[1]
astjax.jit(h)(g)
