"""autodiff_cookbook cell 25: a Python `if` on the value being differentiated, whose
branch raises an exception that an enclosing `try` catches. JAX differentiates with
concrete primal values, so the test runs in Python and the handler runs only when the
branch raises. astjax stages the function for every input (the `if` becomes a cond,
and a `raise` in a staged branch cannot be decided per input: a located
ConcretizationError), then, for an eager transformation, stages it again with this
call's values known (`ad_base._stage_known`): the `if` is decided on them, as JAX does.

JAX and astjax:  (Array(3.1415927, dtype=float32, weak_type=True),)
                 3.1415927 24.0
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
