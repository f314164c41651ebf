"""`jnp` functions refuse Python lists and tuples exactly where JAX 0.10.2 does.

The cases and JAX's outcomes come from `tests/oracle/arraylike.json` (written by
`tests/oracle/record_arraylike.py` under JAX): every public function of `jax.numpy`,
`jax.numpy.linalg` and `jax.numpy.fft` called with list and tuple operands. Where JAX
raises its "requires ndarray or scalar arguments" TypeError, astjax raises the same
text as an `ArgumentTypeError` (an AstjaxError and a TypeError); where JAX returns a
value, astjax returns the same value.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import ArgumentTypeError, AstjaxError

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_arraylike import build  # noqa: E402
from oracle import compare  # noqa: E402

CASES = compare.load("arraylike")
MARK = "requires ndarray or scalar arguments"
# JAX functions astjax does not have yet (a test below fails once one exists, so its
# cases join the others).
NOT_IN_ASTJAX: set[str] = set()
CASES = [c for c in CASES if c["function"] not in NOT_IN_ASTJAX]


def _function(qualname):
    ns = jnp
    for part in qualname.split(".")[:-1]:
        ns = getattr(ns, part)
    return getattr(ns, qualname.split(".")[-1])


def _ids(case):
    return case["function"] + "(" + ",".join(f"{k}:{a}" for k, a in case["args"]) + ")"


def _same_value(got, want):
    if "tuple" in want:
        assert isinstance(got, (tuple, list)) and len(got) == len(want["tuple"])
        for g, w in zip(got, want["tuple"]):
            _same_value(g, w)
        return
    if "scalar" in want or "other" in want:
        return
    a = np.asarray(got)
    assert list(a.shape) == want["shape"]
    assert str(a.dtype) == want["dtype"]
    if "re" in want:
        np.testing.assert_allclose(a.real.ravel(), want["re"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.imag.ravel(), want["im"], rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(a.astype(np.float64).ravel(), want["values"], rtol=1e-5,
                                   atol=1e-6)


def _call(case):
    return _function(case["function"])(*build(case["args"], jnp.asarray))


def test_missing_names_are_still_missing():
    for name in NOT_IN_ASTJAX:
        assert not hasattr(jnp, name), f"jnp.{name} exists now: drop it from NOT_IN_ASTJAX"


def test_enough_cases():
    assert len(CASES) > 300
    assert sum(MARK in c.get("message", "") for c in CASES) > 300


@pytest.mark.parametrize("case", [c for c in CASES if MARK in c.get("message", "")], ids=_ids)
def test_refused_as_jax(case):
    with pytest.raises(ArgumentTypeError) as info:
        _call(case)
    assert isinstance(info.value, TypeError) and isinstance(info.value, AstjaxError)
    assert info.value.message == case["message"]


@pytest.mark.parametrize("case", [c for c in CASES if "value" in c], ids=_ids)
def test_accepted_as_jax(case):
    _same_value(_call(case), case["value"])


@pytest.mark.parametrize("case", [c for c in CASES if "raises" in c and MARK not in c["message"]],
                         ids=_ids)
def test_other_outcomes_not_this_check(case):
    """Where JAX fails for another reason, astjax does not blame the list."""
    try:
        _call(case)
    except ArgumentTypeError as e:
        assert MARK not in e.message
    except Exception:  # noqa: BLE001 - any other outcome is not this check's
        pass


def test_located_at_the_user_line():
    with pytest.raises(TypeError) as info:
        jnp.sum([1, 2, 3])
    assert f"{Path(__file__).name}:" in str(info.value).splitlines()[0]


def test_under_jit_located_at_the_call():
    def f(x):
        return x + jnp.sum([1.0, 2.0])
    with pytest.raises(TypeError) as info:
        astjax.jit(f)(1.0)
    assert "sum requires ndarray or scalar arguments, got <class 'list'> at position 0." \
        in str(info.value)
    assert "return x + jnp.sum" in str(info.value)


def test_constructors_and_shapes_accept_sequences():
    assert jnp.array([1, 2]).shape == (2,)
    assert jnp.stack([jnp.ones(2), jnp.zeros(2)]).shape == (2, 2)
    assert jnp.vstack([jnp.ones(2), 3.0 * jnp.ones(2)]).shape == (2, 2)
    assert jnp.concatenate([jnp.ones(2), jnp.zeros(1)]).shape == (3,)
    assert jnp.zeros([2, 3]).shape == (2, 3)
    assert jnp.reshape(jnp.arange(6), [2, 3]).shape == (2, 3)
    with pytest.raises(TypeError, match="concatenate requires ndarray"):
        jnp.concatenate([[1, 2], [3]])
    with pytest.raises(TypeError, match="vstack requires ndarray or scalar arguments, got "
                                        "<class 'tuple'> at position 0"):
        jnp.vstack([(jnp.ones(2),), (jnp.ones(2),)])


def test_methods_and_keywords():
    x = jnp.arange(3.0)
    assert float(x.sum()) == 3.0
    with pytest.raises(TypeError, match="at position 1"):
        jnp.add(x, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="full requires ndarray or scalar arguments, got "
                                        "<class 'list'> at position 0"):
        jnp.full((2,), [1.0, 2.0])
    with pytest.raises(TypeError, match="where requires"):
        jnp.where(x > 1, [1.0, 2.0, 3.0], x)


def test_callable_objects_keep_their_attributes():
    """A checked callable that is not a function (a ufunc object) keeps its methods."""
    from astjax.numpy.arraylike import _checked

    class Ufunc:
        def __call__(self, x, y):
            return x + y

        def reduce(self, x):
            return "reduced"
    f = _checked(Ufunc(), "add", 2)
    assert f(1.0, 2.0) == 3.0 and f.reduce(None) == "reduced"
    with pytest.raises(TypeError, match="add requires ndarray or scalar arguments, got "
                                        "<class 'list'> at position 1"):
        f(1.0, [2.0])
