# expect: AstjaxError TypeError
# jax: TypeError (TypeError): transpose permutation isn't a permutation of operand dimensions, got permutation (0,) for operand shape (2, 3).
# xfail: lax.transpose does not check that the permutation covers every axis (primitives/structural.py); JAX raises TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.transpose(jnp.ones((2, 3)), (0,))  # error
