# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Unsupported QR decomposition mode 'thin'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.qr(jnp.eye(3), mode="thin")  # error
