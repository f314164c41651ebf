"""Data-parallel (JAX's spmd_mnist_classifier_fromscratch pattern) and
tensor-parallel (column/row-sharded MLP) training on 4 CPU devices, written
against JAX's API, against JAX 0.10.2's losses, accuracy and layouts (stored in
tests/oracle/spmd_training.json by tests/oracle/record_spmd_training.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle.record_spmd_training import run

EXPECTED = json.loads((Path(__file__).parent / "oracle" / "spmd_training.json").read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def test_training_matches_jax():
    got = run(jax, jnp)
    assert set(got) == set(EXPECTED)
    for k, want in EXPECTED.items():
        if isinstance(want, list) and want and isinstance(want[0], float):
            np.testing.assert_allclose(got[k], want, rtol=1e-5, err_msg=k)
        elif isinstance(want, float):
            np.testing.assert_allclose(got[k], want, rtol=1e-5, err_msg=k)
        else:
            assert got[k] == want, k
