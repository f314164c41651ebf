# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


def f(x):
    g = np.random.default_rng(0)
    while jnp.sum(x) < 10:  # error
        x = x + g.random()
    return x


astjax.jit(f)(np.ones(2, np.float32))
