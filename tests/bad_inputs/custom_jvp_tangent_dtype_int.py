# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes. Expected float32[] (tangent type of float32[]) but got int32[].
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
    return jnp.sin(x), jnp.int32(1)

astjax.jvp(f, (1.0,), (1.0,))  # error
