# expect: AstjaxError IndexError
# jax: IndexError (IndexError): tuple index out of range
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.argmax(jnp.ones((2, 3)), axis=-3)  # error
