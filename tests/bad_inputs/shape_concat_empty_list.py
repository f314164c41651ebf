# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Need at least one array to concatenate.
# xfail: jnp.concatenate([]) reaches dtypes.py:130 (result_type of nothing) and fails with a raw TypeError; numpy/ must reject an empty list with a ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.concatenate([])  # error
