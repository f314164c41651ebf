# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

r = complex(jnp.logaddexp(jnp.array(5j), jnp.array(1j)))
# JAX returns the principal branch: the phase in [-pi, pi)
assert abs(r - (-0.18356991 - 0.14159322j)) < 1e-5, r
