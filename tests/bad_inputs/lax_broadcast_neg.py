# expect: AstjaxError TypeError
# jax: TypeError (TypeError): broadcast_in_dim shape must have every element be nonnegative, got (-1, 3).
# xfail: TODO raw JaxRuntimeError at /work/wt/api-errors/codegen/compile_cache.py:151: UNKNOWN: -:2:59: error: expected non-function type <unknown>:0: error: Failed to parse using StableHLO v1.17.0, this could indi
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.broadcast(jnp.ones(3), (-1,))  # error
