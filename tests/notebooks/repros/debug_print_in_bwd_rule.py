"""jax.debug.print in a custom_vjp backward rule (the debugging guide's recipe for
printing gradients) prints three times in astjax, once in JAX.

JAX:    x_grad: 2.0
        2.0
astjax: x_grad: 2.0 (x3)
        2.0
"""
import jax


@jax.custom_vjp
def print_grad(x):
    return x


def print_grad_fwd(x):
    return x, None


def print_grad_bwd(_, x_grad):
    jax.debug.print("x_grad: {}", x_grad)
    return (x_grad,)


print_grad.defvjp(print_grad_fwd, print_grad_bwd)
print(jax.grad(lambda x: print_grad(x) * 2.)(1.))
