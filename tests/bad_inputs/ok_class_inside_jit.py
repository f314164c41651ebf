# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp

def f(x):
    class Affine:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __call__(self, y):
            return self.a * y + self.b
    return Affine(2.0, 1.0)(x)

out = astjax.jit(f)(jnp.arange(3.0))
assert out.tolist() == [1.0, 3.0, 5.0]
