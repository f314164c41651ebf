# expect: ArgumentError AttributeError
# jax: AttributeError (AttributeError): Unrecognized config option: jax_no_such_option
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.config.update("jax_no_such_option", True)  # error
