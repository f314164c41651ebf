"""grad(holomorphic=True) through a complex Cholesky: astjax drops imaginary parts.

JAX:    [[-0.753+0j, -3.05-10.94j, 5.99+3.54j], ...]  (complex off-diagonals)
astjax: [[16.62+0j, -1.36+0j, -1.90+0j], ...]         (silently wrong, all real)
"""
import jax
import jax.numpy as jnp

A = jnp.array([[5., 2. + 3j, 5j],
               [2. - 3j, 7., 1. + 7j],
               [-5j, 1. - 7j, 12.]])


def f(X):
    L = jnp.linalg.cholesky(X)
    return jnp.sum((L - jnp.sin(L)) ** 2)


print(jax.grad(f, holomorphic=True)(A))
