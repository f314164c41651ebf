# expect: ConcretizationError TypeError
# jax: TypeError (TracerIntegerConversionError): The __index__() method was called on traced array with shape int32[]
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


def f(x, n):
    for i in range(n):  # error
        ACC.accumulate(x)
    return x


astjax.jit(f)(np.ones(2, np.float32), 3)
