# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Invalid norm value bad; should be "backward","ortho" or "forward".
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.fft.fft(jnp.ones(4), norm='bad')  # error
