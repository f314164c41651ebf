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
        astjax.debug.print("true {x}", x=x)
        return x + 1
    def no(x):
        astjax.debug.print("false {x}", x=x)
        return x - 1
    return lax.cond(x > 1, yes, no, x)


buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    out = astjax.vmap(f)(jnp.arange(4.0))
    astjax.effects_barrier()
# JAX runs both branches on every lane's own value, in branch order
assert buf.getvalue().split() == ["false", "0.0", "false", "1.0", "false", "2.0", "false", "3.0",
                                  "true", "0.0", "true", "1.0", "true", "2.0", "true", "3.0"], buf.getvalue()
assert out.tolist() == [-1.0, 0.0, 3.0, 4.0]
