# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): '_IndexUpdateRef' object has no attribute 'sett'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.zeros(3).at[0].sett(1.0)  # error
