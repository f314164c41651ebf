# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): primal and tangent arguments to jax.jvp must have the same tree structure; primals have tree structure PyTreeDef((*,)) whereas tangents have tree structure PyTr
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jvp(f, (1.0,), (1.0, 2.0))  # error
