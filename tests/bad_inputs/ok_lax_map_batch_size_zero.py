# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

y = lax.map(jnp.sin, jnp.arange(4.0), batch_size=0)
np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(4.0)), rtol=1e-6)
