# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): '_IndexUpdateRef' object has no attribute 'sett'
# xfail: numpy/advanced_indexing.py _IndexUpdateRef: an unknown method is Python's raw AttributeError (same as JAX) with no location or hint
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.zeros(3).at[0].sett(1.0)  # error
