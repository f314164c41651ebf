# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Number of samples, -3, must be non-negative.
# xfail: TODO raw JaxRuntimeError at /work/wt/api-errors/codegen/compile_cache.py:151: UNKNOWN: -:2:39: error: expected non-function type <unknown>:0: error: Failed to parse using StableHLO v1.17.0, this could indi
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linspace(0.0, 1.0, -3)  # error
