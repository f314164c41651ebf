"""Weak types that differ from JAX's: a Python-float accumulator in a loop over a
static range (y = 0.; y = y + x[i]) stays weak in astjax (JAX: float32, not weak), and
fori_loop over a Python-int init loses its weak type (JAX keeps it).

JAX:    Array(5., dtype=float32)
        Array(45, dtype=int32, weak_type=True)
astjax: Array(5., dtype=float32, weak_type=True)
        Array(45, dtype=int32)
"""
import jax
import jax.numpy as jnp
from jax import lax


def f(x, n):
    y = 0.
    for i in range(n):
        y = y + x[i]
    return y


print(repr(jax.jit(f, static_argnames='n')(jnp.array([2., 3., 4.]), 2)))
print(repr(lax.fori_loop(0, 10, lambda i, x: x + i, 0)))
