# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools


def f(x):
    rng = random.Random(0)
    for i in range(4):
        x = rng.choice([x + 1.0, x * 3.0])
    return x


r = random.Random(0)
want = 1.0
for i in range(4):
    want = r.choice([want + 1.0, want * 3.0])
np.testing.assert_allclose(astjax.jit(f)(np.float32(1.0)), want, rtol=1e-6)
