# expect: ConcretizationError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


def f(x):
    rng = random.Random(0)
    if jnp.sum(x) > 0:  # error
        items = [1.0, 2.0, 3.0]
        rng.shuffle(items)
        x = x + items[0]
    return x + rng.random()


astjax.jit(f)(-np.ones(2, np.float32))
