"""A host callback that raises stops a program that ran: every dispatch path raises
that error and never runs the program again (`codegen/xla_errors.raise_if_ran`), so
the callback's side effects happen once per call, as under JAX."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.callbacks_api import io_callback

_calls = [0]


def _counting(x):
    _calls[0] += 1
    if np.any(x < 0):
        raise RuntimeError("negative input")
    return x


def _spec(x):
    return astjax.ShapeDtypeStruct(x.shape, x.dtype)


def one(x):
    return io_callback(_counting, _spec(x), x)


def tree(d):
    return io_callback(_counting, _spec(d["a"]), d["a"])


def keyword(x, y=1.0):
    return io_callback(_counting, _spec(x), x * y)


@pytest.mark.parametrize("fn, call", [
    (one, lambda f, s: f(np.float32(s))),                 # NumPy scalars: C++ dispatch
    (one, lambda f, s: f(jnp.ones(2) * s)),               # Arrays: the cached entry
    (tree, lambda f, s: f({"a": jnp.ones(2) * s})),       # a tree of Arrays
    (tree, lambda f, s: f({"a": np.ones(2, np.float32) * s})),
    (keyword, lambda f, s: f(jnp.ones(2) * s, y=2.0)),    # a keyword argument
    (one, lambda f, s: one(jnp.ones(2) * s)),             # eager
])
def test_a_callback_that_raises_runs_once_per_call(fn, call):
    jf = astjax.jit(fn)
    for s in (1.0, 1.0, -1.0, -1.0, 1.0):   # cached paths first, then a raising call
        _calls[0] = 0
        if s < 0:
            with pytest.raises(RuntimeError, match="negative input"):
                call(jf, s)
        else:
            call(jf, s)
        assert _calls[0] == 1, (s, _calls[0])
