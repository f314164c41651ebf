"""`global` inside a jitted function.

JAX:    runs (the trace assigns a tracer to the global); prints 4.0 and a tracer
astjax: UnsupportedSyntaxError: `global` is not supported in a staged function
"""
import jax

g = 0.


def f(x):
    global g
    g = x
    return x


print(jax.jit(f)(4.))
print(type(g).__name__)
