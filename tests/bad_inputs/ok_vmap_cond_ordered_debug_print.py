# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

import contextlib
import io


def f(x):
    def yes(x):
        astjax.debug.print("o {x}", x=x, ordered=True)
        return x + 1
    return lax.cond(x > 2, yes, lambda x: x, x)


buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    out = astjax.vmap(f)(jnp.arange(4.0))
    astjax.effects_barrier()
assert buf.getvalue().split() == ["o", "0.0", "o", "1.0", "o", "2.0", "o", "3.0"], buf.getvalue()
assert out.tolist() == [0.0, 1.0, 2.0, 4.0]
