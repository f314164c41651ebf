# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Output character 'i' appeared more than once in the output.
# xfail: einsum 'ij->ii' is not rejected by numpy/contractions.py and fails later in transpose with a ShapeError (TypeError); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.einsum('ij->ii', jnp.ones((2, 3)))  # error
