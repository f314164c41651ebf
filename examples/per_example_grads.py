"""Per-example gradients of the seeds' MLP loss with `jit(vmap(grad(loss)))`.

    python examples/per_example_grads.py

`grad(loss)` differentiates the loss of ONE example; `vmap(..., in_axes=(None, 0))`
maps it over a batch (the parameters are shared, the batch is mapped along its
leading axis); `jit` compiles the whole thing into one XLA program. The result has
the structure of the parameters with a leading batch axis: the gradient of every
example separately (e.g. for per-example clipping in differentially private SGD).
The script checks it against a Python loop of single-example gradients and prints
the batched program's jaxpr.
"""
import time

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import grad, jit, vmap


def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)


def init_params(sizes, rng):
    return [(rng.normal(0, 1 / np.sqrt(m), (m, n)).astype(np.float32), np.zeros(n, np.float32))
            for m, n in zip(sizes[:-1], sizes[1:])]


def main(sizes=(784, 512, 512, 10), batch=128, check=8):
    rng = np.random.default_rng(0)
    params = init_params(list(sizes), rng)
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = rng.normal(size=(batch, sizes[-1])).astype(np.float32)

    perexample_grads = jit(vmap(grad(loss), in_axes=(None, 0)))
    t0 = time.perf_counter()
    grads = astjax.block_until_ready(perexample_grads(params, (x, y)))
    print(f"per-example gradients of a batch of {batch}: first call "
          f"{time.perf_counter() - t0:.3f} s")
    t0 = time.perf_counter()
    grads = astjax.block_until_ready(perexample_grads(params, (x, y)))
    print(f"  second call {time.perf_counter() - t0:.3f} s")
    for (gw, gb), (w, b) in zip(grads, params):
        assert gw.shape == (batch,) + w.shape and gb.shape == (batch,) + b.shape
    print("  shapes:", [(tuple(gw.shape), tuple(gb.shape)) for gw, gb in grads])

    # check against a loop of single-example gradients
    single = jit(grad(loss))
    worst = 0.0
    for i in np.linspace(0, batch - 1, check).astype(int):
        ref = single(params, (x[i], y[i]))
        for (gw, gb), (rw, rb) in zip(grads, ref):
            for g, r in ((gw, rw), (gb, rb)):
                g, r = np.asarray(g)[i], np.asarray(r)
                np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)
                worst = max(worst, float(np.max(np.abs(g - r))))
    print(f"  matches a loop of single-example grads on {check} examples "
          f"(max abs difference {worst:.2e})")

    # the per-example gradients sum to the gradient of the summed batch loss
    total = jit(grad(lambda p, xs, ys: jnp.sum(vmap(loss, in_axes=(None, 0))(p, (xs, ys)))))
    g_total = total(params, x, y)
    for (gw, gb), (tw, tb) in zip(grads, g_total):
        np.testing.assert_allclose(np.asarray(gw).sum(0), np.asarray(tw), rtol=2e-3, atol=2e-4)
    print("  and they sum to grad of the summed loss (grad of a function containing vmap)")

    small = init_params([3, 4, 2], rng)
    print("\nthe batched program for layer sizes [3, 4, 2], batch 5:")
    print(astjax.make_jaxpr(vmap(grad(loss), in_axes=(None, 0)))(
        small, (rng.normal(size=(5, 3)).astype(np.float32),
                rng.normal(size=(5, 2)).astype(np.float32))))
    return grads


if __name__ == "__main__":
    main()
