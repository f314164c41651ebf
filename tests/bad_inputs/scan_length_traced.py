# expect: AstjaxError TypeError
# jax: TypeError (ConcretizationTypeError): Abstract tracer value encountered where concrete value is expected: traced array with shape int32[]
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

@astjax.jit
def f(n):
    return lax.scan(lambda c, x: (c + 1.0, c), 0.0, None, length=n)  # error

f(3)
