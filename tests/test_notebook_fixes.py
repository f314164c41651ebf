"""Differences found by running JAX's documentation notebooks under astjax
(`tests/notebooks/run.py`, issue 13), each pinned against JAX 0.10.2's behaviour."""
import pytest

import astjax
from astjax.extend.core import Primitive
from astjax.interpreters import mlir


def test_register_lowering_returns_none_as_jax():
    # jax-primitives: a cell ending in `mlir.register_lowering(...)` displays nothing
    # under JAX (its register_lowering returns None); astjax displayed the rule.
    p = Primitive("nb_fixes_noop")
    assert mlir.register_lowering(p, lambda ctx, x: [x], platform="cpu") is None
    assert mlir.register_lowering(p, lambda ctx, x: [x]) is None


def test_lax_has_no_zeros_like_array():
    # JAX 0.10.2's jax.lax has no zeros_like_array (removed upstream); the
    # jax-primitives notebook's JVP rule calls it and JAX raises AttributeError there
    # (a raises-exception cell), where astjax ran the rule.
    assert not hasattr(astjax.lax, "zeros_like_array")
    with pytest.raises(AttributeError):
        astjax.lax.zeros_like_array(1.0)
