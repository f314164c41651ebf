"""Regressions found by running dm-haiku's own test suite on astjax
(`tests/ecosystem/run_optax_tests.py --package haiku`), each reduced to plain astjax and
checked against what JAX 0.10.2 gives (values stated beside each case)."""
import functools

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def _inner(v):
    return jnp.sin(v)


def _pops_extra(*args, **kwargs):
    kwargs.pop("extra")
    return _inner(*args, **kwargs)


functools.wraps(_inner)(_pops_extra)
# hk.remat's shape: a wrapper's `__wrapped__` chain ends at a function that takes fewer
# arguments than the wrapper passes on; the wrapper's own parameters bind the call
_OUTER = functools.wraps(_pops_extra)(lambda *a, **k: _pops_extra(*a, **k))

TRANSFORMS = {
    "jit": (astjax.jit, np.sin(1.0)),
    "checkpoint": (astjax.checkpoint, np.sin(1.0)),
    "grad": (astjax.grad, np.cos(1.0)),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_wrapper_parameters_bind_the_call(name):
    transform, want = TRANSFORMS[name]
    got = transform(_OUTER)(jnp.float32(1.0), extra=1)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_wrapper_own_parameters_still_checked():
    # the wrapper's own signature refuses the call: the located ArityError stays
    def wrapper(x):
        return _inner(x)
    functools.wraps(_inner)(wrapper)
    with pytest.raises(TypeError, match="unexpected keyword argument 'extra'"):
        astjax.jit(wrapper)(jnp.float32(1.0), extra=1)
