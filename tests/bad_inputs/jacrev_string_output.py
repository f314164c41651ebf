# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Argument 's' of type <class 'str'> is not a valid JAX type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.jacrev(lambda x: "s")(1.0)  # error
