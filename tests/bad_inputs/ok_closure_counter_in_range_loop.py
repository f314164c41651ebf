# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


def make_counter():
    n = 0

    def step():
        nonlocal n
        n += 1
        return n
    return step


def f(x):
    step = make_counter()
    for i in range(3):
        x = x * 0.5 + step()
    return x


np.testing.assert_allclose(astjax.jit(f)(np.float32(0.0)), 4.25)
