# expect: ok
# jax: ok
# xfail: TODO rejected a valid program: LoopCarryError: /work/wt/api-errors/tests/bad_inputs/tree_scan_carry_dtype.py:9:9     c, ys = lax.scan(lambda c, x: (c + x, x), 0, jnp.ones(3))             ^^^^^^^^^^^^^^^^^^
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

c, ys = lax.scan(lambda c, x: (c + x, x), 0, jnp.ones(3))
assert float(c) == 3.0 and ys.tolist() == [1.0, 1.0, 1.0]
