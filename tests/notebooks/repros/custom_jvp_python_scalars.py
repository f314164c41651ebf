"""A custom_jvp / custom_vjp function called outside any transformation: JAX calls the
Python function on the values it was given (Python floats stay Python floats);
astjax converts them to arrays. And a custom_vjp bwd output loses its weak type.

JAX:    {'a': 1.0, ...}  /  Point(x=Array(2.5403023, ..., weak_type=True), y=Array(-0., dtype=float32, weak_type=True))
astjax: {'a': Array(1., dtype=float32, weak_type=True), ...}  /  Point(x=Array(2.5403023, dtype=float32), y=Array(-0., dtype=float32))
"""
from collections import namedtuple

import jax
import jax.numpy as jnp

Point = namedtuple("Point", ["x", "y"])


@jax.custom_jvp
def f(pt):
    return {'a': pt.x ** 2, 'b': jnp.sin(pt.x)}


@f.defjvp
def f_jvp(primals, tangents):
    pt, = primals
    pt_dot, = tangents
    return f(pt), {'a': 2 * pt.x * pt_dot.x, 'b': jnp.cos(pt.x) * pt_dot.x}


print(f(Point(1., 2.)))


@jax.custom_vjp
def h(pt):
    return {'a': pt.x ** 2, 'b': (jnp.sin(pt.x), jnp.cos(pt.y))}


def h_fwd(pt):
    return h(pt), pt


def h_bwd(pt, g):
    a_bar, (b0_bar, b1_bar) = g['a'], g['b']
    return (Point(2 * pt.x * a_bar + jnp.cos(pt.x) * b0_bar, -jnp.sin(pt.y) * b1_bar),)


h.defvjp(h_fwd, h_bwd)
print(jax.grad(lambda pt: h(pt)['a'] + h(pt)['b'][0])(Point(1., 2.)))
