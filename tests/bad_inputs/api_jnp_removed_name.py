# expect: JAXAttributeError AttributeError
# jax: AttributeError (AttributeError): jax.numpy.fix was deprecated in JAX v0.9.0, and will be removed in JAX v0.10.0. Use jax.numpy.trunc instead.
import numpy as np
import astjax
import astjax.numpy as jnp

x = jnp.fix(jnp.array([1.5, -1.5]))  # error
