# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.cond(x[0] > 0, lambda v: v, lambda v: -v, operand=x)

out = astjax.jit(f)(-jnp.ones(3))
assert np.allclose(out, [1.0, 1.0, 1.0]), out  # error
