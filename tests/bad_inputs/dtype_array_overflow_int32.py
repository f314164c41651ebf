# expect: AstjaxError OverflowError
# jax: OverflowError (OverflowError): Python int 1099511627776 too large to convert to int32
# xfail: R12: numpy/creation.py:array casts Python ints to int32 without a range check (2**40 -> 0 silently); JAX raises OverflowError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.array(2**40)  # error
