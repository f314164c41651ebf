"""Tensor-parallel (Megatron-style) training of a 2-layer MLP on a 2 x 2
(data, model) mesh: the first weight is split by columns and the second by rows
over `model`, the batch over `data`. The program is written once, globally; XLA's
SPMD partitioner keeps each device's slices local and inserts the one all-reduce
the row-split matmul needs. The per-device layout is printed.

Run: python examples/spmd_tensor_parallel.py        (astjax, 4 CPU devices)
     python examples/spmd_tensor_parallel.py --jax  (the same file on JAX)
"""
import os
import sys

os.environ.setdefault("ASTJAX_NUM_CPU_DEVICES", "4")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
if "--jax" in sys.argv:
    import jax
else:
    import astjax as jax
import numpy as np

jnp = jax.numpy
NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec


def loss(params, x, y):
    w1, b1, w2, b2 = params
    h = jnp.tanh(x @ w1 + b1)            # columns of w1 (and of h) on `model`
    logits = h @ w2 + b2                  # rows of w2 on `model`: partial sums, all-reduced
    logp = logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -jnp.mean(jnp.sum(logp * y, axis=1))


def main():
    auto = jax.sharding.AxisType.Auto
    mesh = jax.make_mesh((2, 2), ("data", "model"), axis_types=(auto, auto))
    rng = np.random.RandomState(0)
    d_in, d_hidden, d_out, n = 64, 256, 10, 512
    centers = rng.randn(d_out, d_in).astype(np.float32)
    labels = rng.randint(0, d_out, n)
    x_all = (centers[labels] + rng.randn(n, d_in)).astype(np.float32)
    y_all = np.eye(d_out, dtype=np.float32)[labels]
    layouts = [P(None, "model"), P("model"), P("model", None), P()]
    init = [rng.randn(d_in, d_hidden) * 0.1, np.zeros(d_hidden), rng.randn(d_hidden, d_out) * 0.1,
            np.zeros(d_out)]
    params = [jax.device_put(np.asarray(v, np.float32), NamedSharding(mesh, s))
              for v, s in zip(init, layouts)]
    batch_sharding = NamedSharding(mesh, P("data"))

    @jax.jit
    def update(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        return [p - 0.5 * g for p, g in zip(params, grads)]

    for step in range(20):
        sl = slice((step % 4) * 128, (step % 4 + 1) * 128)
        x = jax.device_put(x_all[sl], batch_sharding)
        y = jax.device_put(y_all[sl], batch_sharding)
        if step % 5 == 0:
            print(f"step {step:2d} loss {float(loss(params, x, y)):.4f}")
        params = update(params, x, y)
    print("per-device layout after training:")
    for name, p in zip(["w1", "b1", "w2", "b2"], params):
        parts = ", ".join(f"{s.device.id}:{tuple(s.data.shape)}" for s in p.addressable_shards)
        print(f"  {name} {tuple(p.shape)} {p.sharding.spec}  -> {parts}")


if __name__ == "__main__":
    main()
