# expect: AstjaxError ValueError
# jax: ValueError (ValueError): duplicate value in 'axis': (1, -1)
# xfail: TODO raw JaxRuntimeError at /work/wt/api-errors/codegen/compile_cache.py:151: UNKNOWN: -:4:10: error: Duplicate reduction dimension: 1 <unknown>:0: error: Failed to parse using StableHLO v1.17.0, this coul
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.mean(jnp.ones((2, 3)), axis=(1, -1))  # error
