# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp

z = jnp.array([1j, 0j, 2 + 0j])
assert np.asarray(astjax.jit(lambda v: v.astype(bool))(z)).tolist() == [True, False, True]
assert np.asarray(z.astype(bool)).tolist() == [True, False, True]
