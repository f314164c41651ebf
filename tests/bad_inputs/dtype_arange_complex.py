# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Passing complex start/stop/step to jnp.arange is no longer supported starting in JAX v0.10.0.
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/numpy/creation.py:170: ufunc 'ceil' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the ca
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(1j)  # error
