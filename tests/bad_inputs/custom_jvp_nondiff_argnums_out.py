# expect: ArgumentIndexError IndexError
# jax: IndexError (IndexError): tuple index out of range
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

f = astjax.custom_jvp(lambda x: x * 2, nondiff_argnums=(3,))
f.defjvp(lambda primals, tangents: (primals[0] * 2, tangents[0] * 2))
f(1.0)  # error
