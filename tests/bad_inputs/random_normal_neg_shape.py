# expect: AstjaxError TypeError
# jax: Exception (MLIRError): Invalid type:
# xfail: R12: random.normal does not validate a negative shape; XLA's StableHLO parser rejects the program with a raw JaxRuntimeError (JAX also fails raw: MLIRError)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.normal(random.PRNGKey(0), (-1,))  # error
