# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


def f(x):
    it = itertools.cycle([0.5, 1.0, 2.0])
    for i in range(4):
        x = x + sum(itertools.islice(it, 2))
    return x


np.testing.assert_allclose(astjax.jit(f)(np.float32(0.0)), 1.5 + 2.5 + 3.0 + 1.5)
