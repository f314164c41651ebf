# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Invalid integer data type 'f'.
# xfail: TODO raw ValueError at /work/wt/api-errors/.venv/lib/python3.11/site-packages/numpy/_core/getlimits.py:421: Invalid integer data type 'f'.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.iinfo(jnp.float32)  # error
