"""`scipy.stats` corner cases against jax 0.10.2's stored results: `gamma.logpdf` of
NaN (JAX's support test `x >= loc` is false: -inf), `chi2.logpdf` with a negative scale
(JAX's expression: log of a negative y, no clamp, so its gradient is not 0), `gamma` /
`chi2` gradients with an infinite scale, `norm.ppf` / `isf` of integers (JAX's
TypeError) and of floats (the default float dtype, strong), and the weak type of a
result whose every argument is weak (under `jit`)."""
import numpy as np
import pytest

import astjax as jax
from astjax.scipy import stats as st

NAN, INF = float("nan"), float("inf")
ARGS = [(1.5, 2.0, 0.0, INF), (1.5, 3.0, 0.0, -2.0), (NAN, 2.0, 0.0, 1.0), (1.5, 2.0, 0.5, INF)]

# (distribution, function, ARGS index, None: the value / k: d/d(argument k), JAX's float32)
JAX_VALUES = [
    ("gamma", "cdf", 0, None, 0.0),
    ("gamma", "cdf", 0, 0, 0.0),
    ("gamma", "cdf", 0, 1, 0.0),
    ("gamma", "cdf", 0, 2, -0.0),
    ("gamma", "cdf", 0, 3, -0.0),
    ("gamma", "cdf", 1, None, 0.0),
    ("gamma", "cdf", 1, 0, -0.0),
    ("gamma", "cdf", 1, 1, 0.0),
    ("gamma", "cdf", 1, 2, 0.0),
    ("gamma", "cdf", 1, 3, -0.0),
    ("gamma", "cdf", 2, None, NAN),
    ("gamma", "cdf", 2, 0, 0.0),
    ("gamma", "cdf", 2, 1, NAN),
    ("gamma", "cdf", 2, 2, -0.0),
    ("gamma", "cdf", 2, 3, NAN),
    ("gamma", "cdf", 3, None, 0.0),
    ("gamma", "cdf", 3, 0, 0.0),
    ("gamma", "cdf", 3, 1, 0.0),
    ("gamma", "cdf", 3, 2, -0.0),
    ("gamma", "cdf", 3, 3, -0.0),
    ("gamma", "logpdf", 0, None, -INF),
    ("gamma", "logpdf", 0, 0, NAN),
    ("gamma", "logpdf", 0, 1, -INF),
    ("gamma", "logpdf", 0, 2, NAN),
    ("gamma", "logpdf", 0, 3, NAN),
    ("gamma", "logpdf", 1, None, NAN),
    ("gamma", "logpdf", 1, 0, 1.8333333730697632),
    ("gamma", "logpdf", 1, 1, NAN),
    ("gamma", "logpdf", 1, 2, -1.8333333730697632),
    ("gamma", "logpdf", 1, 3, 1.875),
    ("gamma", "logpdf", 2, None, -INF),
    ("gamma", "logpdf", 2, 0, 0.0),
    ("gamma", "logpdf", 2, 1, 0.0),
    ("gamma", "logpdf", 2, 2, -0.0),
    ("gamma", "logpdf", 2, 3, NAN),
    ("gamma", "logpdf", 3, None, -INF),
    ("gamma", "logpdf", 3, 0, NAN),
    ("gamma", "logpdf", 3, 1, -INF),
    ("gamma", "logpdf", 3, 2, NAN),
    ("gamma", "logpdf", 3, 3, NAN),
    ("gamma", "pdf", 0, None, 0.0),
    ("gamma", "pdf", 0, 0, NAN),
    ("gamma", "pdf", 0, 1, NAN),
    ("gamma", "pdf", 0, 2, NAN),
    ("gamma", "pdf", 0, 3, NAN),
    ("gamma", "pdf", 1, None, NAN),
    ("gamma", "pdf", 1, 0, NAN),
    ("gamma", "pdf", 1, 1, NAN),
    ("gamma", "pdf", 1, 2, NAN),
    ("gamma", "pdf", 1, 3, NAN),
    ("gamma", "pdf", 2, None, 0.0),
    ("gamma", "pdf", 2, 0, 0.0),
    ("gamma", "pdf", 2, 1, 0.0),
    ("gamma", "pdf", 2, 2, -0.0),
    ("gamma", "pdf", 2, 3, NAN),
    ("gamma", "pdf", 3, None, 0.0),
    ("gamma", "pdf", 3, 0, NAN),
    ("gamma", "pdf", 3, 1, NAN),
    ("gamma", "pdf", 3, 2, NAN),
    ("gamma", "pdf", 3, 3, NAN),
    ("chi2", "cdf", 0, None, 0.0),
    ("chi2", "cdf", 0, 0, 0.0),
    ("chi2", "cdf", 0, 1, 0.0),
    ("chi2", "cdf", 0, 2, -0.0),
    ("chi2", "cdf", 0, 3, -0.0),
    ("chi2", "cdf", 1, None, 0.0),
    ("chi2", "cdf", 1, 0, -0.0),
    ("chi2", "cdf", 1, 1, 0.0),
    ("chi2", "cdf", 1, 2, 0.0),
    ("chi2", "cdf", 1, 3, -0.0),
    ("chi2", "cdf", 2, None, NAN),
    ("chi2", "cdf", 2, 0, 0.0),
    ("chi2", "cdf", 2, 1, NAN),
    ("chi2", "cdf", 2, 2, -0.0),
    ("chi2", "cdf", 2, 3, NAN),
    ("chi2", "cdf", 3, None, 0.0),
    ("chi2", "cdf", 3, 0, 0.0),
    ("chi2", "cdf", 3, 1, 0.0),
    ("chi2", "cdf", 3, 2, -0.0),
    ("chi2", "cdf", 3, 3, -0.0),
    ("chi2", "logpdf", 0, None, NAN),
    ("chi2", "logpdf", 0, 0, NAN),
    ("chi2", "logpdf", 0, 1, -INF),
    ("chi2", "logpdf", 0, 2, NAN),
    ("chi2", "logpdf", 0, 3, NAN),
    ("chi2", "logpdf", 1, None, NAN),
    ("chi2", "logpdf", 1, 0, 0.5833333730697632),
    ("chi2", "logpdf", 1, 1, NAN),
    ("chi2", "logpdf", 1, 2, -0.5833333730697632),
    ("chi2", "logpdf", 1, 3, 0.9375),
    ("chi2", "logpdf", 2, None, NAN),
    ("chi2", "logpdf", 2, 0, NAN),
    ("chi2", "logpdf", 2, 1, NAN),
    ("chi2", "logpdf", 2, 2, NAN),
    ("chi2", "logpdf", 2, 3, NAN),
    ("chi2", "logpdf", 3, None, NAN),
    ("chi2", "logpdf", 3, 0, NAN),
    ("chi2", "logpdf", 3, 1, -INF),
    ("chi2", "logpdf", 3, 2, NAN),
    ("chi2", "logpdf", 3, 3, NAN),
    ("chi2", "pdf", 0, None, NAN),
    ("chi2", "pdf", 0, 0, NAN),
    ("chi2", "pdf", 0, 1, NAN),
    ("chi2", "pdf", 0, 2, NAN),
    ("chi2", "pdf", 0, 3, NAN),
    ("chi2", "pdf", 1, None, NAN),
    ("chi2", "pdf", 1, 0, NAN),
    ("chi2", "pdf", 1, 1, NAN),
    ("chi2", "pdf", 1, 2, NAN),
    ("chi2", "pdf", 1, 3, NAN),
    ("chi2", "pdf", 2, None, NAN),
    ("chi2", "pdf", 2, 0, NAN),
    ("chi2", "pdf", 2, 1, NAN),
    ("chi2", "pdf", 2, 2, NAN),
    ("chi2", "pdf", 2, 3, NAN),
    ("chi2", "pdf", 3, None, NAN),
    ("chi2", "pdf", 3, 0, NAN),
    ("chi2", "pdf", 3, 1, NAN),
    ("chi2", "pdf", 3, 2, NAN),
    ("chi2", "pdf", 3, 3, NAN),
]


def test_values_and_gradients_as_jax():
    bad = []
    for dist, fn, i, k, want in JAX_VALUES:
        f = getattr(getattr(st, dist), fn)
        args = [np.float32(v) for v in ARGS[i]]
        got = float(f(*args) if k is None else jax.grad(f, argnums=k)(*args))
        if not (got == want or (np.isnan(got) and np.isnan(want))
                or abs(got - want) <= 1e-6 * abs(want)):
            bad.append((dist, fn, ARGS[i], k, got, want))
    assert not bad


@pytest.mark.parametrize("call", [lambda: st.norm.ppf(np.array([0, 1], np.int32)),
                                  lambda: st.norm.ppf(0), lambda: st.norm.isf(np.int32(1))])
def test_norm_quantiles_of_integers_raise(call):
    with pytest.raises(TypeError, match="x.dtype=int32 is not supported"):
        call()


def test_norm_ppf_default_float(x64):
    r = st.norm.ppf(np.float32(0.25))
    assert r.dtype == np.float64 and not r.weak_type


def test_norm_ppf_python_scalar_strong():
    r = st.norm.ppf(0.25)
    assert r.dtype == np.float32 and not r.weak_type


def test_weak_when_every_argument_is_weak():
    r = jax.jit(lambda x: st.gamma.logpdf(x, 2.0))(1.5)
    assert r.dtype == np.float32 and r.weak_type
    r = jax.jit(lambda x: st.gamma.logpdf(x, 2.0))(np.float32(1.5))
    assert not r.weak_type


def test_integer_array_with_python_parameters_strong():
    # an int32 array beside Python floats: JAX's beta / gamma / t results are strong
    assert not st.beta.logpdf(np.int32([0, 1]), 1.5, 1.5).weak_type
    assert not st.gamma.cdf(np.int32([0, 1]), 1.5).weak_type
