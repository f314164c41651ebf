# expect: JAXAttributeError AttributeError
# jax: AttributeError (AttributeError): module 'jax.numpy' has no attribute 'real_if_close'
import numpy as np
import astjax
import astjax.numpy as jnp

x = jnp.real_if_close(jnp.array([1.0 + 0j]))  # error
