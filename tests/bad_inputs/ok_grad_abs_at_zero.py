# expect: ok
# xfail: R16: grad(abs)(0.) is 0, JAX gives 1 (abs jvp = t * sign(x))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(astjax.grad(jnp.abs)(0.0)) == 1.0
