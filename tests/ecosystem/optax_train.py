"""A typical optax program (several optimizers, inject_hyperparams, MultiSteps, a
schedule, apply_if_finite, a lax.scan training loop, losses); prints its numbers as
JSON. Run unchanged under real JAX (to record the expected file) and under
`python -m astjax run` (see run.py)."""
import json, sys
import numpy as np
import jax, jax.numpy as jnp
import optax

rng = np.random.RandomState(0)
X = rng.randn(64, 5).astype(np.float32)
w_true = rng.randn(5, 1).astype(np.float32)
Y = X @ w_true + 0.1 * rng.randn(64, 1).astype(np.float32)
params = {"w": jnp.zeros((5, 1)), "b": jnp.zeros((1,))}

def loss(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

results = {}
opts = {
    "sgd_momentum": optax.sgd(0.05, momentum=0.9),
    "adam": optax.adam(0.05),
    "adamw": optax.adamw(0.05, weight_decay=1e-2),
    "chain_clip_adam": optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.05)),
    "inject": optax.inject_hyperparams(optax.adam)(learning_rate=0.05),
    "multisteps": optax.MultiSteps(optax.adam(0.05), every_k_schedule=2),
    "schedule": optax.adam(optax.exponential_decay(0.1, 10, 0.5)),
    "lion": optax.lion(0.01),
    "rmsprop": optax.rmsprop(0.01),
    "adagrad": optax.adagrad(0.1),
    "finite": optax.apply_if_finite(optax.adam(0.05), 3),
}
for name, opt in opts.items():
    state = opt.init(params)
    p = params
    @jax.jit
    def step(p, s):
        l, g = jax.value_and_grad(loss)(p, X, Y)
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s, l
    for i in range(20):
        p, state, l = step(p, state)
    results[name] = [float(l), np.asarray(p["w"]).ravel().tolist()]

# a lax.scan training loop
opt = optax.adam(0.05)
def train(p):
    def body(carry, _):
        p, s = carry
        l, g = jax.value_and_grad(loss)(p, X, Y)
        u, s = opt.update(g, s, p)
        return (optax.apply_updates(p, u), s), l
    (p, s), ls = jax.lax.scan(body, (p, opt.init(p)), None, length=30)
    return p, ls
p, ls = jax.jit(train)(params)
results["scan"] = [float(ls[-1]), np.asarray(p["w"]).ravel().tolist()]
# losses
logits = jnp.asarray(rng.randn(4, 3).astype(np.float32)); labels = jnp.array([0, 2, 1, 1])
results["xent"] = np.asarray(optax.softmax_cross_entropy_with_integer_labels(logits, labels)).tolist()
results["huber"] = np.asarray(optax.huber_loss(logits, jnp.zeros_like(logits))).ravel().tolist()
results["global_norm"] = float(optax.global_norm(params | {"x": jnp.ones(3)}))
json.dump(results, sys.stdout)
