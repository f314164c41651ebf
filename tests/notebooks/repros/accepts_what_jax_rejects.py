"""Calls JAX rejects (on purpose), which astjax used to accept. (Python `if`/`while`/
`and` on traced values under jit and `x.reshape(jnp.array(x.shape).prod())` are
accepted by design -- converted control flow, static shapes -- and are not listed here.)

JAX:    jnp.sum(list): TypeError / vstack of tuples: TypeError /
        vmap of an ordered io_callback: ValueError
astjax: the same classes now (ArgumentTypeError is a TypeError, ArgumentValueError a
        ValueError; tests/test_arraylike.py)
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback


def attempt(what, thunk):
    try:
        print(what + ":", thunk())
    except Exception as e:
        print(what + ":", type(e).__name__)


attempt("jnp.sum(list)", lambda: jnp.sum([1, 2, 3]))
attempt("vstack of tuples", lambda: jnp.vstack([(jnp.array([1., 2.]),), (jnp.array([3., 4.]),)]))


@jax.jit
def ordered(x):
    return io_callback(lambda x: x, x, x, ordered=True)


attempt("vmap of an ordered io_callback", lambda: jax.vmap(ordered)(jnp.zeros(3)))
