"""`jax_threefry_partitionable`: both settings give JAX 0.10.2's bits (the program in
tests/oracle/record_threefry_flag.py against its stored values), the context manager
restores the setting, and a jitted sampler follows a change of the flag."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_threefry_flag  # noqa: E402
from oracle import compare  # noqa: E402

EXPECTED = compare.load("threefry_flag")


@pytest.fixture(scope="module")
def result():
    try:
        return record_threefry_flag.run(astjax, jnp)
    finally:
        astjax.config.update("jax_threefry_partitionable", True)


def _cases():
    for key, want in EXPECTED.items():
        if isinstance(want, dict):
            for name in want:
                yield key, name
        else:
            yield key, None


@pytest.mark.parametrize("setting,name", list(_cases()))
def test_matches_jax(result, setting, name):
    got, want = result[setting], EXPECTED[setting]
    if name is not None:
        got, want = got[name], want[name]
    if "bits" in (name or "") or "split" in (name or setting) or "fold" in (name or ""):
        assert got == want  # integers: exact
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=1e-6, atol=0)


def test_settings_differ():
    """A check that the flag is read at all: the two layouts give other bits."""
    assert EXPECTED["True"]["bits32_5"] != EXPECTED["False"]["bits32_5"]


def test_jit_follows_flag_change():
    f = astjax.jit(lambda k: astjax.random.bits(k, (5,)))
    k = astjax.random.PRNGKey(42)
    assert np.asarray(f(k)).tolist() == EXPECTED["True"]["bits32_5"]
    try:
        astjax.config.update("jax_threefry_partitionable", False)
        assert np.asarray(f(k)).tolist() == EXPECTED["False"]["bits32_5"]
    finally:
        astjax.config.update("jax_threefry_partitionable", True)
    assert np.asarray(f(k)).tolist() == EXPECTED["True"]["bits32_5"]


def test_context_manager_value():
    assert astjax.threefry_partitionable.value is True
    with astjax.threefry_partitionable(False):
        assert astjax.config.jax_threefry_partitionable is False
    assert astjax.config.read("jax_threefry_partitionable") is True
