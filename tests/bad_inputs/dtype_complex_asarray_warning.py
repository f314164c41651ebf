# expect: warning ComplexWarning
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp

z = np.array([1 + 2j, 3 - 1j], np.complex64)
out = jnp.asarray(z, dtype=jnp.float32)  # error
assert np.asarray(out).tolist() == [1.0, 3.0]
