# expect: AstjaxError ValueError
# jax: ValueError (ValueError): jnp.pad: pad_width with nd=1 has unsupported shape (2, 2). Valid shapes are (1, 2), (1, 2), (2,), (1,), or ().
# xfail: TODO raw ValueError at /work/wt/api-errors/.venv/lib/python3.11/site-packages/numpy/lib/_stride_tricks_impl.py:382: operands could not be broadcast together with remapped shapes [original->remapped]: (2,2)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.pad(jnp.ones(3), ((1, 1), (1, 1)))  # error
