# expect: AstjaxError TypeError
# jax: Exception (MLIRError): Invalid type:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.normal(random.PRNGKey(0), (-1,))  # error
