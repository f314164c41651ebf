"""astjax's exception classes are not subclasses of the ones JAX raises, so a user's
`except ValueError:` / `except TypeError:` misses them (vmapped_log_probs catches the
broadcasting error with `except ValueError`).

JAX:    broadcast ValueError is ValueError: True
        lax.add dtypes TypeError is TypeError: True
        grad of pure_callback ValueError is ValueError: True
        dot shapes TypeError is TypeError: True
astjax: broadcast ShapeError is ValueError: False          <- ShapeError subclasses TypeError only
        lax.add dtypes DTypeError is TypeError: True
        grad of pure_callback DifferentiationError is ValueError: False
        dot shapes ShapeError is TypeError: True
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def check(what, expected, thunk):
    try:
        thunk()
        print(what, "no error")
    except Exception as e:
        print(what, type(e).__name__, f"is {expected.__name__}:", isinstance(e, expected))


check("broadcast", ValueError, lambda: jnp.ones(100) * jnp.ones((100, 10)))
check("lax.add dtypes", TypeError, lambda: lax.add(1, 1.0))
f = lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), np.float32), x)
check("grad of pure_callback", ValueError, lambda: jax.grad(f)(1.0))
check("dot shapes", TypeError, lambda: jnp.dot(jnp.ones((3, 4)), jnp.ones(5)))
