"""A typical flax.linen program: a small CNN with Conv, BatchNorm, Dropout, pooling,
Dense, trained with optax for a few steps; prints its numbers as JSON."""
import json, sys
import numpy as np
import jax, jax.numpy as jnp
import flax.linen as nn
import optax


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Conv(8, (3, 3), use_bias=False)(x)  # a bias before BatchNorm has a zero gradient: Adam would amplify its noise
        x = nn.BatchNorm(use_running_average=not train)(x)
        x = nn.relu(x)
        x = nn.max_pool(x, (2, 2), strides=(2, 2))
        x = nn.Conv(8, (3, 3), padding="VALID")(x)
        x = nn.avg_pool(x, (2, 2), strides=(1, 1))
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(16)(x)
        x = nn.Dropout(0.5, deterministic=not train)(x)
        return nn.Dense(4)(nn.gelu(x))


rng = np.random.RandomState(0)
X = jnp.asarray(rng.randn(8, 10, 10, 3).astype(np.float32))
Y = jnp.asarray(rng.randint(0, 4, 8))
model = CNN()
variables = model.init({"params": jax.random.PRNGKey(0), "dropout": jax.random.PRNGKey(1)}, X, train=False)
params, stats = variables["params"], variables["batch_stats"]
res = {"param_sums": [float(jnp.sum(p)) for p in jax.tree_util.tree_leaves(params)]}
tx = optax.adam(1e-2)
opt_state = tx.init(params)


@jax.jit
def step(params, stats, opt_state, key):
    def loss_fn(p):
        logits, upd = model.apply({"params": p, "batch_stats": stats}, X, train=True,
                                  rngs={"dropout": key}, mutable=["batch_stats"])
        return optax.softmax_cross_entropy_with_integer_labels(logits, Y).mean(), upd
    (l, upd), g = jax.value_and_grad(loss_fn, has_aux=True)(params)
    u, opt_state = tx.update(g, opt_state, params)
    return optax.apply_updates(params, u), upd["batch_stats"], opt_state, l


key = jax.random.PRNGKey(2)
losses = []
for i in range(5):
    key, sub = jax.random.split(key)
    params, stats, opt_state, l = step(params, stats, opt_state, sub)
    losses.append(float(l))
res["losses"] = losses
res["eval"] = np.asarray(model.apply({"params": params, "batch_stats": stats}, X[:2], train=False)).ravel().tolist()
json.dump(res, sys.stdout)
