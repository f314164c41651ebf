# expect: AstjaxError TypeError
# jax: TypeError (TypeError): expected function with aux output to return a two-element tuple, but got type <class 'tuple'> with value (GradTracer(primal=2.0, typeof(tangent)=f32[]), GradTra
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2, x, x

astjax.grad(f, has_aux=True)(1.0)  # error
