# expect: ShapeError TypeError
# jax: TypeError (TypeError): rev dimensions must be unique, got (1, 1).
import numpy as np
import astjax
import astjax.numpy as jnp


def f(x):
    return jnp.flip(x, axis=(1, -1))  # error


astjax.jit(f)(np.ones((2, 3), np.float32))
