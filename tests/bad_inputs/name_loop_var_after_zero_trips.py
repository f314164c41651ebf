# expect: UnboundLocalVariableError UnboundLocalError
# jax: UnboundLocalError (UnboundLocalError): cannot access local variable 'i' where it is not associated with a value
import astjax
import astjax.numpy as jnp


def f(x):
    for i in range(0):
        pass
    return x * i  # error


astjax.jit(f)(jnp.ones(2))
