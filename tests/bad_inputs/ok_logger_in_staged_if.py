# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
import random
import itertools

import logging


def f(x):
    if jnp.sum(x) > 0:
        logging.getLogger("case").warning("positive")
        x = x * 2.0
    return x


np.testing.assert_allclose(astjax.jit(f)(-np.ones(2, np.float32)), -np.ones(2))
