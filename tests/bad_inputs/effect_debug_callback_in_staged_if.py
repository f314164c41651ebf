# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

seen = []


def f(x):
    if x > 0:
        astjax.debug.callback(seen.append, x)
    return x


g = astjax.jit(f)
g(1.0)
g(-1.0)
g(2.0)
assert [float(v) for v in seen] == [1.0, 2.0], seen
