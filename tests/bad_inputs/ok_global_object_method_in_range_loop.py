# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


class Acc:
    def __init__(self):
        self.total = 0.0

    def accumulate(self, v):
        self.total = self.total + v


ACC = Acc()


def f(x):
    ACC.total = 0.0
    for i in range(3):
        ACC.accumulate(x * i)
    return ACC.total


np.testing.assert_allclose(astjax.jit(f)(np.float32(2.0)), 6.0)
