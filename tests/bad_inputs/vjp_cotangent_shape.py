# expect: AstjaxError ValueError
# jax: ValueError (ValueError): unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got float32[2], but expected float32[3] because the corresponding output of the differentia
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/ad_api.py:365: Shape of cotangent input to vjp pullback function (2,) must be the same as the shape of corresponding primal input (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

y, pullback = astjax.vjp(f, jnp.ones(3))
pullback(jnp.ones(2))  # error
