"""autodiff_cookbook cell 25: a Python `if` on the value being differentiated, whose
branch raises an exception that an enclosing `try` catches. JAX differentiates with
concrete primal values, so the test runs in Python and the handler runs only when the
branch raises. astjax stages the function (the `if` becomes a cond), so a `raise` in a
branch cannot be decided per input: since 8293c20 it is a located ConcretizationError
(before, the handler was taken for every input -- right at x=4 by coincidence, wrong
at x=2).

JAX:    (Array(3.1415927, dtype=float32, weak_type=True),)
        3.1415927 24.0
astjax: ConcretizationError: `ValueError: ` is raised here, on a line that runs only
        where a test that is staged allows (a branch of an `if`) ...
"""
import jax.numpy as jnp
from jax import grad, jit, vjp


def f(x):
    try:
        if x < 3:
            return 2 * x ** 3
        else:
            raise ValueError
    except ValueError:
        return jnp.pi * x


y, f_vjp = vjp(f, 4.)
print(jit(f_vjp)(1.))
print(grad(f)(4.), grad(f)(2.))
