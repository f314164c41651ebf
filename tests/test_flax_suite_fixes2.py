"""What flax 0.12.8's own test suite (its sdist's tests/, run on astjax with
`python -m astjax run -m pytest FILE`) found in its fourth run, each as a minimal
regression test (no flax needed). The earlier runs' tests are in
tests/test_flax_suite_fixes.py."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


@pytest.mark.parametrize("act, size", [(astjax.nn.relu, 1024), (astjax.nn.relu6, 2048)])
def test_relu_lowers_to_max_min_as_jax_flops(act, size):
    """flax's `tabulate(compute_flops=True)` reads `jit(f).lower(...).cost_analysis()`:
    JAX's relu is a `custom_jvp` of `maximum(x, 0)` (relu6 also `minimum(., 6)`), one
    flop per element each; astjax's selects on `x > 0` and NaN counted 5 per element."""
    x = jnp.ones((1, 1024))
    assert astjax.jit(act).lower(x).cost_analysis()["flops"] == size
    jaxpr = str(astjax.make_jaxpr(act)(x))
    assert "custom_jvp_call" in jaxpr and "select" not in jaxpr


@pytest.mark.parametrize("act, inside", [(astjax.nn.relu, lambda x: x > 0),
                                         (astjax.nn.relu6, lambda x: (x > 0) & (x < 6))])
def test_relu_values_and_derivatives_kept(act, inside):
    """JAX's values (NaN stays NaN) and derivatives (0 at the kinks and at NaN), eager,
    under `jit`, `grad`, `jvp` and `vmap`."""
    x = np.array([np.nan, -1.0, 0.0, 2.0, 6.0, 7.0], np.float32)
    want = np.minimum(np.maximum(x, 0), 6.0 if act is astjax.nn.relu6 else np.inf)
    for f in (act, astjax.jit(act), astjax.vmap(act)):
        np.testing.assert_array_equal(f(x), want)
    g = astjax.grad(lambda x: act(x).sum())(x)
    np.testing.assert_array_equal(g, np.where(inside(x), 1.0, 0.0))
    _, t = astjax.jvp(act, (x,), (np.full_like(x, 3.0),))
    np.testing.assert_array_equal(t, np.where(inside(x), 3.0, 0.0))
    kept = jnp.int32 if act is astjax.nn.relu else jnp.float32   # (6.0 promotes)
    assert act(3).dtype == kept and int(act(-3)) == 0
