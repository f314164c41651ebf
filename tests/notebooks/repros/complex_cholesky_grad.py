"""grad(holomorphic=True) through a complex Cholesky: astjax drops imaginary parts --
silently wrong numbers. The elementwise part is right; the Cholesky derivative is not.

JAX:    notebook f: [[-0.753+0j, -3.05-10.94j, 5.99+3.54j], ...]   (complex off-diagonals)
        sum(cholesky) [0, 1]: (0.5048621+1.5043215j)
astjax: notebook f: [[16.62+0j, -1.36+0j, -1.90+0j], ...]          (all real)
        sum(cholesky) [0, 1]: (-1.111301+0j)
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
print("sum(cholesky) [0, 1]:",
      jax.grad(lambda X: jnp.sum(jnp.linalg.cholesky(X)), holomorphic=True)(A)[0, 1])
