"""Printed forms that differ from JAX's (cosmetic, but notebooks print them):

                        JAX                                   astjax
tracer under jit        JitTracer(float32[3])                 Traced<f32[3]>
jax.typeof(x)           int32[8]                              ShapedArray(i32[8])
type(jnp array)         jaxlib._jax.ArrayImpl                 astjax.codegen.runtime.Array
register_pytree_node    returns None                          returns the class
str(exception)          the message                           file:line, source, caret, message, hint
jaxpr of jnp.where      a nested `jit[name=where ...]`        select_n inlined
eqn.params of dot       includes precision/out_sharding       without them
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


@jax.jit
def f(x):
    print(x)
    return x


f(jnp.ones(3))
print(jax.typeof(np.arange(8)))
print(type(jnp.ones(2)))
print(jax.tree_util.register_pytree_node(type("T", (), {}), lambda t: ((), None),
                                         lambda a, c: None))
try:
    lax.add(1, 1.0)
except TypeError as e:
    print(repr(str(e)))
print(jax.make_jaxpr(lambda x: jnp.where(x > 0, x, 0.))(jnp.ones(2)))
eqn = jax.make_jaxpr(jnp.dot)(jnp.ones((2, 2)), jnp.ones(2)).jaxpr.eqns[0]
print(sorted(eqn.params))
