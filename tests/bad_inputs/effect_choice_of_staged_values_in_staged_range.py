# expect: ConcretizationError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


def f(x, n):
    rng = random.Random(0)
    for i in range(n):  # error
        x = x + rng.choice([x, x * 2.0])
    return x


astjax.jit(f)(np.ones(2, np.float32), 3)
