"""`astjax.example_libraries` (stax and optimizers) against values stored from JAX
0.10.2 (tests/oracle/record_example_libraries.py): a CNN of every kind of layer, its
initial parameters and loss, and five jitted steps of every optimizer with schedules,
gradient clipping and a pack/unpack round trip."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.example_libraries import optimizers, stax

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_example_libraries as oracle  # noqa: E402
from oracle import compare  # noqa: E402

STORED = compare.load("example_libraries")
# The gradients agree with JAX's to 1.5e-7; RMSProp divides by the root of a running
# mean of g^2, which turns those ulps into up to 1e-3 after five steps.
RTOL = {"rmsprop": 2e-3, "rmsprop_momentum": 2e-3}


@pytest.fixture(scope="module")
def results():
    return oracle.run(astjax, jnp, stax, optimizers)


@pytest.mark.parametrize("key", sorted(STORED))
def test_matches_jax(results, key):
    np.testing.assert_allclose(np.asarray(results[key], float), np.asarray(STORED[key], float),
                               rtol=RTOL.get(key, 1e-5), atol=1e-6)


def test_optimizer_errors_and_schedules():
    opt_init, opt_update, get_params = optimizers.sgd(0.1)
    state = opt_init({"a": jnp.ones(2)})
    with pytest.raises(TypeError, match="did not match the parameter tree"):
        opt_update(0, [jnp.ones(2)], state)
    with pytest.raises(ValueError, match="one shorter"):
        optimizers.piecewise_constant([1, 2], [0.1])
    assert float(optimizers.polynomial_decay(1.0, 4, 0.0)(8)) == 0.0
    with pytest.raises(TypeError):
        optimizers.make_schedule([0.1, 0.2])


def test_dropout_needs_a_key_and_layers_compose():
    init, apply = stax.Dropout(0.5)
    with pytest.raises(ValueError, match="PRNG key"):
        apply((), jnp.ones(3))
    init, apply = stax.serial(stax.FanOut(2), stax.parallel(stax.Identity, stax.Tanh),
                              stax.FanInSum)
    shape, params = init(astjax.random.PRNGKey(0), (3,))
    x = jnp.array([0.0, 0.5, 1.0])
    np.testing.assert_allclose(apply(params, x), x + np.tanh(np.asarray(x)), rtol=1e-6)
    assert shape == (3,)
