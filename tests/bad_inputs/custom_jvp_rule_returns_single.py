# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Custom JVP rule f_jvp for function f must produce a pair (list or tuple of length two) representing primal and tangent outputs, but got 0.8414709568023682.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

@astjax.custom_jvp
def f(x):
    return jnp.sin(x)

@f.defjvp
def f_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.sin(x)

astjax.jvp(f, (1.0,), (1.0,))  # error
