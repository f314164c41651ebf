# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Need at least one array to concatenate.
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/dtypes.py:130: unbound method frozenset.intersection() needs an argument
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.concatenate([])  # error
