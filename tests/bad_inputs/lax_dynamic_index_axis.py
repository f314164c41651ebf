# expect: AstjaxError IndexError
# jax: IndexError (IndexError): list assignment index out of range
# xfail: TODO raw IndexError at /work/wt/api-errors/astjax/primitives/slicing.py:228: list assignment index out of range
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.dynamic_index_in_dim(jnp.ones(3), 0, axis=2)  # error
