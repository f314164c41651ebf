# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): vmap in_axes specification must be a tree prefix of the corresponding value; 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.vmap(lambda xs: xs[0] + xs[1], in_axes=((0, 0, 0),))([jnp.ones(2), jnp.ones(2)])  # error
