# expect: AstjaxError TypeError
# jax: TypeError (TypeError): the first argument must be callable
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

f = astjax.custom_vjp(lambda x: x * 2)
f.defvjp(lambda x: (x * 2, None), 3)  # error
astjax.grad(f)(1.0)
