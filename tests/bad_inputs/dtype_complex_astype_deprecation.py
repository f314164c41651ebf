# expect: warning DeprecationWarning
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp


def helper(z):
    return z.astype(jnp.int32)  # error


@astjax.jit
def f(z):
    return helper(z) + 1


out = f(jnp.array([1 + 2j, 3 - 1j], jnp.complex64))
assert np.asarray(out).tolist() == [2, 4]
