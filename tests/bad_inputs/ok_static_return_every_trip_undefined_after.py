# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, s):
    w0 = jnp.sin(x)
    for i in range(1, 4):
        for u, c in zip([w0, x], [0.5, 0.25]):
            if x.ndim == 1:
                return jnp.sin(x) * 0.5
            w0, s = jnp.cos(u) * jnp.tanh(NEVER_DEFINED), s * 0.5  # noqa: F821
    return x + w0 + s + NEVER_DEFINED  # noqa: F821

x = np.linspace(0.1, 1, 3)
np.testing.assert_allclose(astjax.jit(f)(x, 1.0), np.sin(x) * 0.5, rtol=1e-6)
