# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Cannot take a larger sample (size 5) than population (size 3) when 'replace=False'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

from astjax import random
random.choice(random.PRNGKey(0), 3, (5,), replace=False)  # error
