"""A method-named call on an object the function does not own (`tx.update(...)`,
`d.update(...)`) in a loop body: the converter sees a possible change of that object
(R17) and the loop would unroll; whether the call changes the object is decided when
the statement runs (`operators.per_trip_effect`). A flax/optax-style training loop --
a model object's `apply`, parameters in a dict, an optimizer whose `update` is a
function kept in a NamedTuple -- in a Python `for` over a static range is one `scan`
(it unrolled: issue 12, round 7's "seen, not fixed"); a dict's `update`, a user
object's mutating method and an item store still run once per trip, as Python does."""
import dataclasses
from typing import Callable, NamedTuple

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Model:
    """A flax-linen-like module: hyperparameters on the object, parameters outside."""
    scale: float = 1.0

    def init(self, x):
        return {"w": np.full((x.shape[-1], 1), 0.1, np.float32), "b": np.zeros(1, np.float32)}

    def apply(self, params, x):
        return jnp.tanh(x @ params["w"] + params["b"]) * self.scale


class Transformation(NamedTuple):
    """An optax-like optimizer: functions kept in a tuple."""
    init: Callable
    update: Callable


def sgd(lr):
    def update(grads, state, params=None):
        return {k: -lr * g for k, g in grads.items()}, state
    return Transformation(lambda params: (), update)


MODEL = Model(2.0)
TX = sgd(0.1)
X = np.random.RandomState(0).randn(16, 3).astype(np.float32)
Y = np.random.RandomState(1).randn(16, 1).astype(np.float32)


def loss(params):
    return jnp.mean((MODEL.apply(params, X) - Y) ** 2)


def train(params):
    opt_state = TX.init(params)
    for i in range(100):
        grads = astjax.grad(loss)(params)
        updates, opt_state = TX.update(grads, opt_state, params)
        params = {k: params[k] + updates[k] for k in params}
    return params, loss(params)


def _numpy_train(params, steps=100):
    """The same loop, by hand in NumPy float64 (the reference)."""
    w, b = params["w"].astype(np.float64), params["b"].astype(np.float64)
    x, y = X.astype(np.float64), Y.astype(np.float64)
    for _ in range(steps):
        h = x @ w + b
        t = np.tanh(h)
        r = 2.0 * t - y
        dh = (2.0 * r / r.size) * 2.0 * (1 - t ** 2)
        w, b = w - 0.1 * (x.T @ dh), b - 0.1 * dh.sum(0)
    return w, b, np.mean((2.0 * np.tanh(x @ w + b) - y) ** 2)


def test_training_loop_is_one_scan():
    params = MODEL.init(X)
    text = str(astjax.make_jaxpr(train)(params))
    assert text.count("scan[") == 1 and text.count("dot_general") < 12
    (got, l) = astjax.jit(train)(params)
    w, b, want = _numpy_train(params)
    np.testing.assert_allclose(got["w"], w, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(l, want, rtol=1e-4)


STATS = {}


class Counter:
    def __init__(self):
        self.n = 0

    def update(self, k):
        self.n += k


COUNTER = Counter()
SEEN = [0.0] * 4


def dict_update(x):
    for i in range(4):
        STATS.update({i: i * 2})
        x = x + len(STATS)
    return x


def object_update(x):
    for i in range(4):
        COUNTER.update(i)
        x = x + COUNTER.n
    return x


def item_store(x):
    for i in range(4):
        SEEN[i] = i + 1.0
        x = x + sum(SEEN)
    return x


@pytest.mark.parametrize("fn, want", [(dict_update, 1.0 + 1 + 2 + 3 + 4),
                                      (object_update, 1.0 + 0 + 1 + 3 + 6),
                                      (item_store, 1.0 + 1 + 3 + 6 + 10)])
def test_real_changes_still_run_per_trip(fn, want):
    STATS.clear()
    COUNTER.n = 0
    SEEN[:] = [0.0] * 4
    assert float(fn(1.0)) == want     # Python
    STATS.clear()
    COUNTER.n = 0
    SEEN[:] = [0.0] * 4
    assert float(astjax.jit(fn)(1.0)) == want
