"""`global` in a function that a transformation stages -- directly under jit, or just a
helper (a logging/indentation counter) called by a function under grad.

JAX:    4.0 / DynamicJaxprTracer       (jit: the trace assigns a tracer to the global)
        depth 1 / 6.0                  (grad: the helper runs as Python)
astjax: UnsupportedSyntaxError: `global` is not supported in a staged function
        (for both; the grad case is the jax-primitives tutorial's `_trace_indent` helper)
"""
import jax

g = 0.


def f(x):
    global g
    g = x
    return x


try:
    print(jax.jit(f)(4.))
    print(type(g).__name__)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[-2 if len(str(e).splitlines()) > 1 else 0])

depth = 0


def enter():
    global depth
    depth = depth + 1
    print("depth", depth)


def square(x):
    enter()
    return x * x


print(jax.grad(square)(3.))
