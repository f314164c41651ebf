# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Argument types differ from the types for which this computation was compiled. Perhaps you are calling the compiled executable with a different enable_x64 mode t
# xfail: TODO raw JaxRuntimeError at /work/wt/api-errors/codegen/runtime.py:281: INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch: Executable(jit_f) expected parameter 0 of size 12 (f32[3]{0}) but got buffer wi
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

c = astjax.jit(f).lower(jnp.ones(3)).compile()
c(jnp.ones(4))  # error
