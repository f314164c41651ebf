# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


assert jnp.einsum('ij,jk->ik', jnp.ones((2, 1)), jnp.ones((3, 4))).tolist() == [[3.0] * 4] * 2
