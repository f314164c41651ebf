"""`config.parse_flags_with_absl()` / `config_with_absl()` as JAX's (flax's and haiku's test
files call the first at import): the `--jax...` arguments of `sys.argv` before a `--`
become settings, unknown `--jax` names and other arguments are ignored, once per process."""
import sys

import pytest
from absl import flags

import astjax

config_module = sys.modules["astjax.config"]


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(config_module, "_configured_with_absl", False)
    saved = astjax.config.values
    flags.FLAGS.unparse_flags()   # absl's process-wide parse state
    yield
    flags.FLAGS.unparse_flags()
    for name in ("jax_debug_nans", "jax_numpy_rank_promotion", "jax_enable_x64"):
        astjax.config.update(name, saved[name])


def test_jax_arguments_before_the_separator_are_applied(fresh, monkeypatch):
    monkeypatch.setattr(sys, "argv", [
        "prog", "--jax_debug_nans=true", "--jax_numpy_rank_promotion=raise",
        "--jax_not_an_option=1", "--other=2", "--", "--jax_enable_x64=true"])
    astjax.config.parse_flags_with_absl()
    assert astjax.config.jax_debug_nans is True
    assert astjax.config.jax_numpy_rank_promotion == "raise"
    assert astjax.config.jax_enable_x64 is False
    assert flags.FLAGS["jax_debug_nans"].value is True


def test_parsed_once_per_process(fresh, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["prog"])
    astjax.config.parse_flags_with_absl()
    monkeypatch.setattr(sys, "argv", ["prog", "--jax_debug_nans=true"])
    astjax.config.parse_flags_with_absl()
    assert astjax.config.jax_debug_nans is False


def test_a_bad_value_is_refused_as_jax(fresh, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["prog", "--jax_numpy_rank_promotion=sometimes"])
    with pytest.raises(ValueError, match="sometimes"):
        astjax.config.parse_flags_with_absl()
