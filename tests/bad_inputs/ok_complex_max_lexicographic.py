# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

z = jnp.array([1 + 2j, 3 - 1j, 1 - 1j, 5j, 3 + 0j], dtype=jnp.complex64)
# JAX orders complex values by real part, then imaginary part
assert complex(jnp.max(z)) == 3 + 0j
assert complex(astjax.jit(jnp.min)(z)) == 5j
assert complex(jnp.ptp(z)) == 3 - 5j
assert [complex(v) for v in lax.cummax(z)] == [1 + 2j, 3 - 1j, 3 - 1j, 3 - 1j, 3 + 0j]
assert [complex(v) for v in lax.cummin(z)] == [1 + 2j, 1 + 2j, 1 - 1j, 5j, 5j]
