# expect: warning ComplexWarning
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(z):
    return lax.convert_element_type(z, jnp.float32) * 2  # error


out = astjax.jit(f)(jnp.array([1 + 2j, 3 - 1j], jnp.complex64))
assert np.asarray(out).tolist() == [2.0, 6.0]
