# expect: ok
# jax: ok
import numpy as np
from astjax import lax

c, ys = lax.scan(lambda c, x: (c + 1.0, c), 0.0, None, length=2.5)  # error
assert float(c) == 2.0 and np.asarray(ys).tolist() == [0.0, 1.0]
