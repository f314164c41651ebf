# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Empty branch sequence
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.switch(0, [], 1.0)  # error
