# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Pred must be a scalar, got yes of type <class 'str'>
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cond("yes", lambda x: x, lambda x: -x, 1.0)  # error
