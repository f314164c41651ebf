"""The comparison the oracle-driven shard_map tests share: a case's recorded JAX result
(`{"value": ..., other fields}` or `{"error": class name, "message": first line}`) against
astjax's, their strict xfail table and the 4-device mark."""
import numpy as np
import pytest


def same_as_jax(jax, got, want, rtol=1e-6, atol=0.0, leaves=False):
    """Assert astjax's `got` is JAX's `want`: the same error class (or a subclass, by
    name) and first message line, or the same value (`leaves`: a list of leaves compared
    one by one) and the same other fields."""
    if "error" in want:
        assert "error" in got, got
        assert want["error"] in [c.__name__ for c in getattr(
            jax.errors, got["error"], Exception).__mro__] + [got["error"]], got
        assert got["message"] == want["message"]
        return
    assert "error" not in got, got
    value, expected = got.pop("value"), want["value"]
    pairs = zip(value, expected) if leaves else [(value, expected)]
    assert not leaves or len(value) == len(expected)
    for g, w in pairs:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    assert got == {k: v for k, v in want.items() if k != "value"}


def four_devices(jax):
    """The skip mark of a test that needs 4 devices (conftest.py makes 4 CPU devices)."""
    return pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                              "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def run_recorded(rec, jax, jnp, expected):
    """astjax's result of every case a recorder `rec` recorded (`rec.run_case`), its
    warnings silenced: a module fixture's body."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: rec.run_case(jax, jnp, name) for name in expected}


def with_xfails(names, xfail):
    """The case names as pytest params, those in `xfail` with its (strict) mark."""
    return [pytest.param(n, marks=xfail[n]) if n in xfail else n for n in names]
