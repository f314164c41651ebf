# expect: AstjaxError TypeError
# jax: Exception (MLIRError): Invalid type:
# xfail: TODO raw JaxRuntimeError at /work/wt/api-errors/codegen/compile_cache.py:151: UNKNOWN: -:2:59: error: expected non-function type <unknown>:0: error: Failed to parse using StableHLO v1.17.0, this could indi
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tile(jnp.ones(2), -1)  # error
