# expect: AstjaxError TypeError
# jax: TypeError (TypeError): lax.fori_loop: body_fun argument should be callable.
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/primitives/while_loop.py:509: 'float' object is not callable
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.fori_loop(0, 3, 1.0, 0.0)  # error
