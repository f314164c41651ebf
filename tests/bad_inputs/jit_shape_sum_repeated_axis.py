# expect: AxisError ValueError
# jax: ValueError (ValueError): duplicate value in 'axis': (0, 0)
import numpy as np
import astjax
import astjax.numpy as jnp


def f(x):
    return jnp.sum(x, axis=(0, 0))  # error


astjax.jit(f)(np.ones((2, 3), np.float32))
