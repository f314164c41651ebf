"""An out-of-bounds static integer index.

JAX:    clamps (gather semantics): 9 and 9.0
astjax: ShapeError: index 11 is out of bounds for axis 0 with size 10
"""
import jax.numpy as jnp

print(jnp.arange(10)[11])
print(jnp.arange(10.0).at[11].get())
print(jnp.arange(10.0).at[11].get(mode='fill', fill_value=jnp.nan))
