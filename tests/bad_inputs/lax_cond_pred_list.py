# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Pred must be a scalar, got [JitTracer(~bool[])] of type <class 'list'>
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.cond([x > 0], lambda v: v, lambda v: -v, x)  # error

astjax.jit(f)(1.0)
