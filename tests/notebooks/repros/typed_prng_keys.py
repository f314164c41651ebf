"""jax.random.key gives a typed key (shape (), dtype key<fry>); astjax gives the raw
uint32[2] of jax.random.PRNGKey, so shapes and reprs of keys differ.

JAX:    Array((), dtype=key<fry>) overlaying:
        [ 0 42]
        () key<fry> / split: (3,)
astjax: [ 0 42] / (2,) uint32 / split: (3, 2)
"""
import jax

key = jax.random.key(42)
print(key)
print(key.shape, key.dtype)
print("split:", jax.random.split(key, 3).shape)
