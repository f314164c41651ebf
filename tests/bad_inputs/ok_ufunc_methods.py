# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.arange(6.0).reshape(2, 3)
assert isinstance(jnp.add, jnp.ufunc) and jnp.add.identity == 0 and jnp.maximum.nin == 2
assert jnp.add.reduce(x).tolist() == [3.0, 5.0, 7.0]
assert jnp.maximum.reduce(x, axis=1).tolist() == [2.0, 5.0]
assert jnp.add.accumulate(x, axis=1).tolist() == [[0.0, 1.0, 3.0], [3.0, 7.0, 12.0]]
assert jnp.multiply.outer(jnp.arange(2), jnp.arange(3)).tolist() == [[0, 0, 0], [0, 1, 2]]
assert jnp.add.at(jnp.zeros(3), jnp.array([0, 0]), 1.0, inplace=False).tolist() == [2.0, 0.0, 0.0]
assert jnp.add.reduceat(jnp.arange(8), jnp.array([0, 4, 1, 5])).tolist() == [6, 4, 10, 18]
f = jnp.frompyfunc(lambda a, b: a * b + 1.0, 2, 1, identity=0.0)
assert astjax.jit(f.reduce)(jnp.arange(4.0)).tolist() == 16.0
assert astjax.grad(lambda x: jnp.multiply.reduce(x))(jnp.array([2.0, 3.0])).tolist() == [3.0, 2.0]
