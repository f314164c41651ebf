# expect: ok
# jax: ok
# xfail: TODO rejected a valid program: LoopCarryError: /work/wt/api-errors/tests/bad_inputs/tree_while_carry_dtype.py:9:14     assert float(lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0)) == 3.0            
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0)) == 3.0
