"""A program over `jax.example_libraries` (stax layers and every optimizer), run on
real JAX to record `example_libraries.json`, and on astjax by the test."""
import json
import sys
from pathlib import Path

import numpy as np


def run(jax, jnp, stax, optimizers):
    out = {}
    rng = np.random.RandomState(0)
    images = jnp.asarray(rng.randn(4, 8, 8, 3).astype(np.float32))
    labels = jnp.asarray(np.eye(5, dtype=np.float32)[[0, 3, 1, 4]])
    init, apply = stax.serial(
        stax.Conv(6, (3, 3), padding="SAME"), stax.BatchNorm(), stax.Relu,
        stax.MaxPool((2, 2), strides=(2, 2)),
        stax.FanOut(2), stax.parallel(stax.Conv(4, (1, 1)), stax.AvgPool((1, 1))),
        stax.FanInConcat(), stax.Conv(3, (2, 2), strides=(2, 2), padding="VALID"), stax.Tanh,
        stax.ConvTranspose(2, (3, 3), strides=(2, 2), padding="SAME"), stax.Gelu,
        stax.SumPool((2, 2)), stax.Flatten, stax.Dense(16), stax.Elu,
        stax.Dropout(0.75), stax.Dense(5), stax.LogSoftmax)
    out_shape, params = init(jax.random.PRNGKey(1), (4, 8, 8, 3))
    out["out_shape"] = [int(d) for d in out_shape]
    out["param_sums"] = [float(jnp.sum(p)) for p in jax.tree_util.tree_leaves(params)]
    key = jax.random.PRNGKey(2)

    def loss(p, x, y):
        return -jnp.mean(jnp.sum(apply(p, x, rng=key) * y, axis=-1))
    out["loss0"] = float(loss(params, images, labels))
    schedules = [0.05, optimizers.exponential_decay(0.1, 3, 0.5),
                 optimizers.inverse_time_decay(0.1, 2, 0.5, staircase=True),
                 optimizers.polynomial_decay(0.1, 4, 0.01, 2.0),
                 optimizers.piecewise_constant([2, 4], [0.1, 0.05, 0.01])]
    makers = {"sgd": lambda s: optimizers.sgd(s), "momentum": lambda s: optimizers.momentum(s, 0.9),
              "nesterov": lambda s: optimizers.nesterov(s, 0.9),
              "adagrad": lambda s: optimizers.adagrad(s), "rmsprop": lambda s: optimizers.rmsprop(s),
              "rmsprop_momentum": lambda s: optimizers.rmsprop_momentum(s),
              "adam": lambda s: optimizers.adam(s), "adamax": lambda s: optimizers.adamax(s),
              "sm3": lambda s: optimizers.sm3(s)}
    # one compiled gradient of the CNN serves every optimizer (a compile per optimizer
    # of the whole step cost most of the test's time)
    grad_loss = jax.jit(jax.grad(loss))
    for k, (name, make) in enumerate(makers.items()):
        opt_init, opt_update, get_params = make(schedules[k % len(schedules)])
        state = opt_init(params)

        def update(i, g, state):
            return opt_update(i, optimizers.clip_grads(g, 1.0), state)
        if name != "sm3":  # its state holds the shape as ints: not jittable (in JAX too)
            update = jax.jit(update)
        for i in range(5):
            state = update(i, grad_loss(get_params(state), images, labels), state)
        state = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
        out[name] = float(loss(get_params(state), images, labels))
    out["l2_norm"] = float(optimizers.l2_norm(params))
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax.example_libraries import optimizers, stax
    assert "astjax" not in sys.modules
    res = run(jax, jnp, stax, optimizers)
    Path(__file__).with_name("example_libraries.json").write_text(json.dumps(res, indent=0) + "\n")
    print(res)
