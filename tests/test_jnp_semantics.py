"""The calls issue 13 fixed last against JAX 0.10.2's stored results
(tests/oracle/record_jnp_semantics.py -> jnp_semantics.json): weighted quantiles
(eager, `jit`, `grad`), 'nearest' at a tie, `nanvar` / `nanstd(dtype=)`,
`ravel_multi_index(dtype=)`, `trim_zeros(axis=)`, `jnp.array`'s `order` and
positional arguments, `reshape(newshape=)`, `einsum_path`, `jax.core.max_dim`, and
`lax.platform_dependent`'s printed jaxpr: the same values and dtypes, or an error of
JAX's builtin class with JAX's message."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.compat import core as jax_core

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
import record_jnp_semantics as rec  # noqa: E402

EXPECTED = json.loads(Path(rec.PATH).read_text())
CASES = rec.cases(jax, jnp, jax_core)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_as_jax(name):
    got, want = rec.record_one(CASES[name]), EXPECTED[name]
    if "error" in want:
        assert got == want
        return
    assert "error" not in got, got
    if "text" in want:
        assert got["text"] == want["text"]
        return
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"])
    tol = 1e-2 if want["dtype"] in ("float16", "bfloat16") else 1e-6
    np.testing.assert_allclose(np.asarray(got["value"]), np.asarray(want["value"]), rtol=tol,
                               atol=tol)


def test_positional_copy_of_array_warns_as_jax():
    with pytest.warns(DeprecationWarning, match="positionally is deprecated"):
        jnp.array([1, 2], jnp.float32, True)
