"""A typical flax.nnx program (as in flax's nnx basics / MNIST tutorials): a small
CNN with Conv, BatchNorm, Dropout, pooling and Linear layers, `nnx.Rngs` typed keys,
trained with `nnx.Optimizer(optax.adamw)` under `nnx.jit` + `nnx.value_and_grad`,
evaluated in eval mode; also `nnx.split`/`nnx.merge`, an `nnx.vmap`-free functional
step with `nnx.state`, and the Rngs' own samplers. Prints its numbers as JSON."""
import json
import sys
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class CNN(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(3, 8, kernel_size=(3, 3), use_bias=False, rngs=rngs)
        self.bn = nnx.BatchNorm(8, rngs=rngs)
        self.conv2 = nnx.Conv(8, 8, kernel_size=(3, 3), padding="VALID", rngs=rngs)
        self.dropout = nnx.Dropout(0.5, rngs=rngs)
        self.linear1 = nnx.Linear(8 * 2 * 2, 16, rngs=rngs)
        self.linear2 = nnx.Linear(16, 4, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.bn(self.conv1(x)))
        x = nnx.max_pool(x, (2, 2), strides=(2, 2))
        x = nnx.avg_pool(self.conv2(x), (2, 2), strides=(1, 1))
        x = x.reshape((x.shape[0], -1))
        x = self.dropout(nnx.gelu(self.linear1(x)))
        return self.linear2(x)


rng = np.random.RandomState(0)
X = jnp.asarray(rng.randn(8, 10, 10, 3).astype(np.float32))
Y = jnp.asarray(rng.randint(0, 4, 8))
model = CNN(rngs=nnx.Rngs(0, dropout=1))
res = {"param_sums": [float(jnp.sum(p)) for p in jax.tree_util.tree_leaves(nnx.state(model, nnx.Param))]}
optimizer = nnx.Optimizer(model, optax.adamw(1e-2, weight_decay=1e-3), wrt=nnx.Param)
metrics = nnx.MultiMetric(loss=nnx.metrics.Average("loss"), accuracy=nnx.metrics.Accuracy())


def loss_fn(model, x, y):
    logits = model(x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean(), logits


@nnx.jit
def train_step(model, optimizer, metrics, x, y):
    (loss, logits), grads = nnx.value_and_grad(loss_fn, has_aux=True)(model, x, y)
    metrics.update(loss=loss, logits=logits, labels=y)
    optimizer.update(model, grads)
    return loss


model.train()
losses = []
for _ in range(5):
    losses.append(float(train_step(model, optimizer, metrics, X, Y)))
res["losses"] = losses
res["metrics"] = [float(v) for v in metrics.compute().values()]
model.eval()
res["eval"] = np.asarray(model(X[:2])).ravel().tolist()
res["batch_mean"] = np.asarray(model.bn.mean[...]).tolist()

# the functional API: split / merge and a jitted pure step
graphdef, state = nnx.split(model)


@jax.jit
def pure_apply(state, x):
    m = nnx.merge(graphdef, state)
    return m(x)


res["pure_eval"] = np.asarray(pure_apply(state, X[2:4])).ravel().tolist()

# typed keys inside Rngs: streams, counts and samplers
rngs = nnx.Rngs(params=3, noise=4)
res["rng_normal"] = np.asarray(rngs.noise.normal((3,))).tolist()
res["rng_uniform"] = np.asarray(rngs.params.uniform((2,))).tolist()
res["rng_key_data"] = np.asarray(jax.random.key_data(rngs.noise())).tolist()
res["rng_count"] = int(rngs.noise.count[...])
drop = nnx.Dropout(0.3, rngs=nnx.Rngs(dropout=7))
res["dropout"] = np.asarray(drop(jnp.ones((6,)))).tolist()
json.dump(res, sys.stdout)
