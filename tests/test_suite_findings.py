"""Findings of running other projects' own test suites unchanged on astjax
(tests/ecosystem/run_optax_tests.py --root: numpyro's `test/`, blackjax's `tests/`;
docs/ecosystem.md): each a minimal form of a test that failed on astjax and passed on
JAX 0.10.2 (JAX's results stored as literals)."""
import functools

import numpy as np
import pytest

import astjax as jax


def _forwarding(f):
    # numpyro's `validate_sample`: a decorator forwarding `(self, *args, **kwargs)`
    @functools.wraps(f)
    def wrapper(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    return wrapper


class _Dist:
    @_forwarding
    def log_prob(self, value):
        return value * 2.0

    def plain(self, value):
        return value + 1.0


def test_jit_of_a_bound_method_under_a_forwarding_decorator_binds_self():
    # numpyro test_distributions_util.py::test_no_tracer_leak_at_lazy_property_log_prob:
    # `jax.jit(dist.log_prob)(1.0)`; astjax followed the bound method's `__wrapped__` to
    # the unbound function and raised ArityError "missing a required argument: 'value'"
    assert float(jax.jit(_Dist().log_prob)(1.0)) == 2.0
    assert float(jax.vmap(_Dist().log_prob)(np.ones(2, np.float32))[1]) == 2.0


def test_a_bound_method_called_with_too_many_arguments_is_still_a_located_type_error():
    with pytest.raises(TypeError, match="positional argument"):
        jax.jit(_Dist().plain)(1.0, 2.0)
