# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes. Expected float32[3] (tangent type of float32[3]) but got float32[2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

@astjax.custom_jvp
def f(x):
    return jnp.sin(x)

@f.defjvp
def f_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.sin(x), jnp.ones(2)

astjax.jvp(f, (jnp.ones(3),), (jnp.ones(3),))  # error
