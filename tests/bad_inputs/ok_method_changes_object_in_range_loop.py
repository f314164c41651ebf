# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

class Acc:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v

def f(x):
    acc = Acc()
    for i in range(3):
        acc.add(x * i)
    return acc.total

x = np.array([1.0, 2.0], np.float32)
np.testing.assert_allclose(astjax.jit(f)(x), 3 * x)
