# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert jnp.einsum('i$,j->ij', jnp.ones((2, 3)), jnp.ones(2)).tolist() == [[3.0, 3.0], [3.0, 3.0]]
