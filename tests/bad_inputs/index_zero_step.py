# expect: AstjaxError ValueError
# jax: ValueError (ValueError): slice step cannot be zero
# xfail: numpy/indexing.py:104: x[::0] reaches a raw ValueError from Python's slice.indices inside astjax
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.arange(5)[::0]  # error
