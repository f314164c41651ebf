# expect: ok
# jax: ok
# xfail: primitives/cond.py:403 (_ensure_types): a weakly-typed while carry (Python int 0) that becomes float is rejected; JAX promotes the weak carry and runs
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0)) == 3.0
