# expect: AstjaxError ValueError
# jax: ValueError (ValueError): slice step cannot be zero
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/numpy/indexing.py:104: slice step cannot be zero
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(5)[::0]  # error
