# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): Gradient only defined for scalar-output functions. Output had shape: (2,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.grad(lambda x: (x * x, 1.0), has_aux=True)(jnp.ones(2))  # error
