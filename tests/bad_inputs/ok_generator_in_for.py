# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


def pairs(x, n):
    for k in range(n):
        yield x * k, k


def f(x):
    acc = x * 0.0
    for v, k in pairs(x, 3):
        acc = acc + v * k
    return acc


np.testing.assert_allclose(astjax.jit(f)(np.float32(2.0)), 10.0)
