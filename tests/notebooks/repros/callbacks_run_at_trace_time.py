"""Host callbacks run more often in astjax than in JAX, and an unused pure_callback
is not removed.

JAX:    f1: printing something (once)
        f2: (nothing: the unused pure_callback is dead code)
        grad+io_callback: hello (once)
astjax: f1: printing something x2; f2: printing something; grad+io_callback: hello x5
(the io_callback cell of the notebook then draws different random numbers)
"""
import jax
import numpy as np
from jax.experimental import io_callback


def print_something():
    print('printing something')
    return np.int32(0)


@jax.jit
def f1():
    return jax.pure_callback(print_something, np.int32(0))


print("f1:")
f1()


@jax.jit
def f2():
    jax.pure_callback(print_something, np.int32(0))
    return 1.0


print("f2:")
f2()


@jax.jit
def f(x):
    io_callback(lambda: print('hello'), None)
    return x


print("grad+io_callback:")
jax.grad(f)(1.0)
