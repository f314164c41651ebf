"""Data-parallel training on several devices, the way JAX's
`examples/spmd_mnist_classifier_fromscratch.py` (sharding version) writes it: one
global program, parameters replicated and each batch split over a 1-D mesh with
`jax.device_put(..., NamedSharding)`, a plain `jax.jit` update; XLA's SPMD
partitioner splits the program and inserts the gradient all-reduce.

Run: python examples/spmd_data_parallel.py          (astjax, 4 CPU devices)
     python examples/spmd_data_parallel.py --jax    (the same file on JAX)
Synthetic MNIST-shaped data (784 features, 10 classes): nothing to download.
"""
import os
import sys
import time

os.environ.setdefault("ASTJAX_NUM_CPU_DEVICES", "4")   # astjax's CPU devices
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")  # JAX's
if "--jax" in sys.argv:
    import jax
else:
    import astjax as jax
import numpy as np
import numpy.random as npr

jnp = jax.numpy
NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec


def init_random_params(scale, layer_sizes, rng=npr.RandomState(0)):
    return [((scale * rng.randn(m, n)).astype(np.float32),
             (scale * rng.randn(n)).astype(np.float32))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def predict(params, inputs):
    activations = inputs
    for w, b in params[:-1]:
        activations = jnp.tanh(jnp.dot(activations, w) + b)
    final_w, final_b = params[-1]
    logits = jnp.dot(activations, final_w) + final_b
    return logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)


def loss(params, batch):
    inputs, targets = batch
    return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))


@jax.jit
def accuracy(params, batch):
    inputs, targets = batch
    return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, axis=1))


def synthetic_mnist(n, rng, centers=npr.RandomState(42).randn(10, 784).astype(np.float32)):
    labels = rng.randint(0, 10, n)
    images = (centers[labels] + 2.0 * rng.randn(n, 784)).astype(np.float32)
    return images, np.eye(10, dtype=np.float32)[labels]


def main():
    step_size, batch_size, num_epochs = 0.01, 128, 3
    train = synthetic_mnist(4096, npr.RandomState(0))
    test = synthetic_mnist(1024, npr.RandomState(1))
    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    replicated = NamedSharding(mesh, P())
    data_sharding = NamedSharding(mesh, P("batch"))

    @jax.jit
    def spmd_update(params, batch):
        grads = jax.grad(loss)(params, batch)
        return [(w - step_size * dw, b - step_size * db)
                for (w, b), (dw, db) in zip(params, grads)]

    params = jax.device_put(init_random_params(0.1, [784, 1024, 1024, 10]), replicated)
    num_batches = train[0].shape[0] // batch_size
    for epoch in range(num_epochs):
        start = time.time()
        perm = npr.RandomState(epoch).permutation(train[0].shape[0])
        for i in range(num_batches):
            idx = perm[i * batch_size:(i + 1) * batch_size]
            batch = jax.device_put((train[0][idx], train[1][idx]), data_sharding)
            params = spmd_update(params, batch)
        jax.block_until_ready(params)
        print(f"Epoch {epoch} in {time.time() - start:0.2f} sec")
        print(f"Training set accuracy {float(accuracy(params, train)):.4f}")
        print(f"Test set accuracy {float(accuracy(params, test)):.4f}")
    print("layout of a batch (device: rows):")
    for s in batch[0].addressable_shards:
        print(f"  {s.device}: {s.index[0].start}:{s.index[0].stop}")
    print(f"parameters: {params[0][0].sharding.spec} (a full copy on each of "
          f"{len(params[0][0].addressable_shards)} devices)")


if __name__ == "__main__":
    main()
