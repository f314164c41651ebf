"""A custom_jvp rule doing arithmetic on an integer primal that came in as a Python
int (the external_callbacks notebook's Bessel-function example: `jv(v - 1, z)`).

JAX:    -0.22984886 / -0.20171134
astjax: TypeError: unsupported operand type(s) for -: 'WeakConst' and 'int'
"""
from functools import partial

import jax
import jax.numpy as jnp


@jax.custom_jvp
def f(v, z):
    return jnp.cos(v * z)


@f.defjvp
def f_jvp(primals, tangents):
    v, z = primals
    _, z_dot = tangents
    slope = jnp.where(v == 0, 0.0, -0.5 * (f(v - 1, z) - f(v + 1, z)))
    return f(v, z), z_dot * slope


g = partial(f, 1)
print(jax.grad(g)(0.5))
print(jax.hessian(g)(0.5))
