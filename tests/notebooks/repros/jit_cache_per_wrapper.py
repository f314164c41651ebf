"""jit(f) made twice traces twice: JAX caches by the function, astjax by the wrapper.

JAX:    prints "tracing" once; second call sees the cached trace (g captured as 0.)
        -> tracing / 4.0 / 5.0
astjax: "tracing" twice, and the second jit reads the new global -> 4.0 / 15.0
"""
import jax

g = 0.


def f(x):
    print("tracing")
    return x + g


print(jax.jit(f)(4.))
g = 10.
print(jax.jit(f)(5.))
