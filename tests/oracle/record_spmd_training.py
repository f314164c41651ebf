"""Data-parallel and tensor-parallel training on 4 devices, written against JAX's
API the way JAX's `examples/spmd_mnist_classifier_fromscratch.py` (sharding
version) writes it: a mesh from `jax.make_mesh`, parameters replicated and the
batch split over the mesh with `jax.device_put(..., NamedSharding)`, a plain
`jax.jit` update step, `jax.grad`, accuracy under `jit`. Synthetic MNIST-shaped
data (no download). Run on real JAX 0.10.2 to record `spmd_training.json`
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_spmd_training.py`), and on astjax by tests/test_spmd_training.py."""
import json
import sys
from pathlib import Path

import numpy as np
import numpy.random as npr


def data(n=256, d=784, k=10, seed=0):
    rng = npr.RandomState(seed)
    centers = rng.randn(k, d).astype(np.float32)
    labels = rng.randint(0, k, n)
    images = (centers[labels] + 2.0 * rng.randn(n, d)).astype(np.float32)
    return images, np.eye(k, dtype=np.float32)[labels]


def init_random_params(scale, layer_sizes, rng=None):
    rng = rng or npr.RandomState(0)
    return [((scale * rng.randn(m, n)).astype(np.float32),
             (scale * rng.randn(n)).astype(np.float32))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def run(jax, jnp):
    logsumexp = jax.scipy.special.logsumexp
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    def predict(params, inputs):
        activations = inputs
        for w, b in params[:-1]:
            outputs = jnp.dot(activations, w) + b
            activations = jnp.tanh(outputs)
        final_w, final_b = params[-1]
        logits = jnp.dot(activations, final_w) + final_b
        return logits - logsumexp(logits, axis=1, keepdims=True)

    def loss(params, batch):
        inputs, targets = batch
        preds = predict(params, inputs)
        return -jnp.mean(jnp.sum(preds * targets, axis=1))

    @jax.jit
    def accuracy(params, batch):
        inputs, targets = batch
        target_class = jnp.argmax(targets, axis=1)
        predicted_class = jnp.argmax(predict(params, inputs), axis=1)
        return jnp.mean(predicted_class == target_class)

    step_size = 0.01
    out = {}
    images, labels = data()
    batch_size = 64

    # -- data parallel: the sharding version of spmd_mnist_classifier_fromscratch
    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    replicated = NamedSharding(mesh, P())
    data_sharding = NamedSharding(mesh, P("batch"))

    @jax.jit
    def spmd_update(params, batch):
        grads = jax.grad(loss)(params, batch)
        return [(w - step_size * dw, b - step_size * db)
                for (w, b), (dw, db) in zip(params, grads)]

    params = jax.device_put(init_random_params(0.1, [784, 64, 32, 10]), replicated)
    losses = []
    for i in range(6):
        sl = slice((i % 4) * batch_size, (i % 4 + 1) * batch_size)
        batch = jax.device_put((images[sl], labels[sl]), data_sharding)
        losses.append(float(loss(params, batch)))
        params = spmd_update(params, batch)
    out["dp_losses"] = losses
    out["dp_param_specs"] = [repr(w.sharding.spec) for w, _ in params]
    out["dp_accuracy"] = float(accuracy(params, (images, labels)))
    out["dp_w0_sum"] = float(jnp.sum(params[0][0]))

    # -- tensor parallel: a column- then row-sharded MLP over a (data, model) mesh
    # whose axes XLA partitions (Auto; with Explicit axes JAX asks for the output
    # sharding of the row-sharded matmul)
    auto = jax.sharding.AxisType.Auto
    mesh2 = jax.make_mesh((2, 2), ("data", "model"), axis_types=(auto, auto))
    col = NamedSharding(mesh2, P(None, "model"))
    row = NamedSharding(mesh2, P("model", None))
    vec = NamedSharding(mesh2, P("model"))
    rep2 = NamedSharding(mesh2, P())
    (w1, b1), (w2, b2) = init_random_params(0.1, [784, 64, 10], npr.RandomState(1))
    tp = [jax.device_put(w1, col), jax.device_put(b1, vec), jax.device_put(w2, row),
          jax.device_put(b2, rep2)]

    def tp_loss(p, x, y):
        w1, b1, w2, b2 = p
        h = jnp.tanh(x @ w1 + b1)
        logits = h @ w2 + b2
        logp = logits - logsumexp(logits, axis=1, keepdims=True)
        return -jnp.mean(jnp.sum(logp * y, axis=1))

    @jax.jit
    def tp_update(p, x, y):
        g = jax.grad(tp_loss)(p, x, y)
        return [a - step_size * da for a, da in zip(p, g)]
    tl = []
    x_sh = NamedSharding(mesh2, P("data"))
    for i in range(4):
        sl = slice(i * batch_size, (i + 1) * batch_size)
        x, y = jax.device_put(images[sl], x_sh), jax.device_put(labels[sl], x_sh)
        tl.append(float(tp_loss(tp, x, y)))
        tp = tp_update(tp, x, y)
    out["tp_losses"] = tl
    out["tp_specs"] = [repr(a.sharding.spec) for a in tp]
    out["tp_w1_shard_shapes"] = [list(s.data.shape) for s in tp[0].addressable_shards]
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("spmd_training.json")
    path.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
