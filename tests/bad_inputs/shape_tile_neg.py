# expect: AstjaxError TypeError
# jax: Exception (MLIRError): Invalid type:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tile(jnp.ones(2), -1)  # error
