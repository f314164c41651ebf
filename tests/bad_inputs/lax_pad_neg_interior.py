# expect: AstjaxError ValueError
# jax: ValueError (ValueError): interior padding in padding_config must be nonnegative, got padding_config ((1, 1, -1),)
# xfail: TODO raw JaxRuntimeError at /work/wt/api-errors/codegen/compile_cache.py:151: UNKNOWN: -:3:10: error: Interior padding cannot be negative: -1 -:3:10: error: 'stablehlo.pad' op failed to infer returned type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.pad(jnp.ones(3), 0.0, [(1, 1, -1)])  # error
