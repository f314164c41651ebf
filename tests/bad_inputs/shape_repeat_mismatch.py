# expect: AstjaxError ValueError
# jax: ValueError (ValueError): operands could not be broadcast together with remapped shapes [original->remapped]: (2,)  and requested shape (3,)
# xfail: TODO raw ValueError at /work/wt/api-errors/.venv/lib/python3.11/site-packages/numpy/_core/fromnumeric.py:54: operands could not be broadcast together with shape (3,) (2,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.repeat(jnp.ones(3), jnp.array([1, 2]))  # error
