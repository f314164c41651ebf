# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Empty branch sequence
# xfail: TODO raw IndexError at /work/wt/api-errors/astjax/primitives/cond.py:426: list index out of range
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.switch(0, [], 1.0)  # error
