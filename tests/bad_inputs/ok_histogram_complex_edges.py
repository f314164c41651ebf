# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp

z = jnp.array([1 + 2j, 3 + 0j, 2 - 1j, 0.5 + 0.5j], jnp.complex64)
counts, edges = jnp.histogram(z, bins=np.array([0.0, 1.0, 2.0, 3.0], np.float32))
assert counts.dtype == jnp.complex64 and edges.dtype == jnp.complex64
assert counts.tolist() == [1, 2, 1] and edges.tolist() == [0, 1, 2, 3]
counts, edges = jnp.histogram(z, bins=3)
assert counts.tolist() == [2, 1, 1]
