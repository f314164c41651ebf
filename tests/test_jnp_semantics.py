"""The calls issue 13 fixed last against JAX 0.10.2's stored results
(tests/oracle/record_jnp_semantics.py -> jnp_semantics.json): weighted quantiles
(eager, `jit`, `grad`), 'nearest' at a tie, `nanvar` / `nanstd(dtype=)`,
`ravel_multi_index(dtype=)`, `trim_zeros(axis=)`, `jnp.array`'s `order` and
positional arguments, `reshape(newshape=)`, `einsum_path`, `jax.core.max_dim`, and
`lax.platform_dependent`'s printed jaxpr: the same values and dtypes, or an error of
JAX's builtin class with JAX's message."""
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import core as jax_core   # (`import astjax as jax`: jax.core.max_dim, as JAX's)

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
import record_jnp_semantics as rec  # noqa: E402

EXPECTED = json.loads(Path(rec.PATH).read_text())
CASES = rec.cases(jax, jnp, jax_core)
# cases whose functions need concrete values (ravel_multi_index's mode='raise',
# trim_zeros) run eagerly; the other values are computed inside one `jit`
EAGER = ["rmi", "rmi_scalars"] + [n for n in sorted(EXPECTED)
                                   if n.startswith(("trim", "array", "asarray"))]
VALUES = [n for n in sorted(EXPECTED) if "value" in EXPECTED[n] and n not in EAGER]


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(EXPECTED)


@pytest.fixture(scope="module")
def values():
    """Every case with a value, computed inside one `jit` (one compile: eager calls
    compile each operation)."""
    fns = [CASES[n] for n in VALUES]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(zip(VALUES, jax.jit(lambda: [f() for f in fns])()))


@pytest.mark.parametrize("name", VALUES)
def test_value_as_jax(values, name):
    got, want = rec.as_json(values[name]), EXPECTED[name]
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"])
    tol = 1e-2 if want["dtype"] in ("float16", "bfloat16") else 1e-6
    np.testing.assert_allclose(np.asarray(got["value"]), np.asarray(want["value"]), rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("name", [n for n in sorted(EXPECTED) if n not in VALUES])
def test_eager_error_text_or_value_as_jax(name):
    assert rec.record_one(CASES[name]) == EXPECTED[name]


@pytest.mark.parametrize("name", ["wq_row"])
def test_eager_as_jit(values, name):
    assert rec.record_one(CASES[name]) == rec.as_json(values[name])


def test_positional_copy_of_array_warns_as_jax():
    with pytest.warns(DeprecationWarning, match="positionally is deprecated"):
        jnp.array([1, 2], jnp.float32, True)
