# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools

import uuid


def f(x):
    out = jnp.zeros(3)
    for i in range(3):
        out = out.at[i].set(uuid.uuid4().int % 1048573 + 0.0 * x)
    return out


assert len(set(np.asarray(astjax.jit(f)(np.float32(1.0))).tolist())) == 3
