# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unsupported format string passed to DynamicJaxprTracer.__format__
# xfail: TODO raw TypeError at /work/wt/api-errors/tests/bad_inputs/conv_fstring_format_spec.py:10: unsupported format string passed to Tracer.__format__
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + len(f'{x.sum():.2f}')  # error

astjax.jit(f)(jnp.ones(3))
