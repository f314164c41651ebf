# expect: AstjaxError TypeError
# jax: Exception (MLIRError): Invalid type:
# xfail: TODO raw JaxRuntimeError at /work/wt/api-errors/codegen/compile_cache.py:151: UNKNOWN: -:2:60: error: expected non-function type <unknown>:0: error: Failed to parse using StableHLO v1.17.0, this could indi
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.normal(random.PRNGKey(0), (-1,))  # error
