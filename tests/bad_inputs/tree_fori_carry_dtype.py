# expect: ok
# jax: ok
# xfail: TODO rejected a valid program: LoopCarryError: /work/wt/api-errors/tests/bad_inputs/tree_fori_carry_dtype.py:9:14     assert float(lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)) == 1.5                  ^^^^
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)) == 1.5
