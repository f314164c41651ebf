"""How often host callbacks run (notebook failure #15): as often as JAX runs them.

A callback runs when the program runs, never while it is staged (the builder folds
equations on known constants by running their NumPy `impl`, which a callback refuses
to do while staging); an unused `pure_callback` is dead code, an unused `io_callback`
is kept; under `grad` the callback runs once (in the forward pass). The expected
counts were recorded from JAX 0.10.2 running the same cases."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.callbacks_api import io_callback

pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")

CALLS = []


def _host(x=None):
    CALLS.append(1)
    return np.float32(0) if x is None else np.asarray(x)


def _host_none():
    CALLS.append(1)


S = jax.ShapeDtypeStruct((), jnp.float32)


def _unused_pure():
    jax.pure_callback(_host, S)
    return 1.0


def _unused_io():
    io_callback(_host, S)
    return 1.0


def _io_then_double(x):
    io_callback(_host_none, None)
    return x * 2.0


# (case, thunk, number of calls under JAX 0.10.2)
CASES = [
    ("jit_pure_used", lambda: jax.jit(lambda: jax.pure_callback(_host, S))(), 1),
    ("jit_pure_unused", lambda: jax.jit(_unused_pure)(), 0),
    ("jit_io_unused", lambda: jax.jit(_unused_io)(), 1),
    ("grad_jit_io", lambda: jax.grad(jax.jit(_io_then_double))(1.0), 1),
    ("grad_io", lambda: jax.grad(_io_then_double)(1.0), 1),
    ("vmap_io_sequential", lambda: jax.vmap(lambda x: io_callback(_host, S, x))(jnp.zeros(3)), 3),
    ("jit_io_const_arg", lambda: jax.jit(lambda: io_callback(_host, S, 2.0))(), 1),
    ("jit_called_twice",
     lambda: [jax.jit(lambda x: jax.pure_callback(_host, S, x))(1.0) for _ in range(2)], 2),
]


@pytest.mark.parametrize("name,thunk,expected", CASES, ids=[c[0] for c in CASES])
def test_callback_call_counts(name, thunk, expected):
    CALLS.clear()
    jax.block_until_ready(thunk())
    jax.effects_barrier()
    assert len(CALLS) == expected


def test_staging_does_not_run_a_callback():
    CALLS.clear()
    jax.make_jaxpr(lambda: jax.pure_callback(_host, S))()
    assert CALLS == []


def test_vmap_of_an_ordered_io_callback_raises_value_error():
    f = jax.jit(lambda x: io_callback(lambda a: a, S, x, ordered=True))
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
        jax.vmap(f)(jnp.zeros(3))
