# expect: ok
# jax: ok
# xfail: TODO rejected a valid program: ShapeError: /work/wt/api-errors/tests/bad_inputs/index_out_of_range_static_1d.py:9:14     assert float(jnp.ones(3)[5]) == 1.0                  ^^^^^^^^^^^^^^ ShapeError: inde
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(jnp.ones(3)[5]) == 1.0
