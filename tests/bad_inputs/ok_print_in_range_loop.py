# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools

import contextlib
import io


def f(x):
    for i in range(3):
        print("trip", i)
        x = x * 0.5
    return x


out = io.StringIO()
with contextlib.redirect_stdout(out):
    y = astjax.jit(f)(np.float32(8.0))
assert out.getvalue() == "trip 0\ntrip 1\ntrip 2\n", out.getvalue()
np.testing.assert_allclose(y, 1.0)
