# expect: AstjaxError TypeError
# jax: Exception (MLIRError): Invalid type:
# xfail: R12: jnp.tile with a negative count is not validated; XLA's StableHLO parser rejects the program with a raw JaxRuntimeError (JAX also fails raw: MLIRError)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tile(jnp.ones(2), -1)  # error
