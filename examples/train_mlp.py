"""Train the seeds' MLP with the seeds' SGD `update` on scikit-learn's digits.

The data set ships inside scikit-learn (no download). Everything below is plain
JAX-style code: `astjax` stages it from source and compiles it with XLA.

Run: python examples/train_mlp.py   (writes loss_curve.png next to where you run it)
"""
import argparse
import time

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import grad, jit

try:
    from tqdm import trange
except ImportError:  # a plain progress line without tqdm
    def trange(n, desc=""):
        for i in range(n):
            if i % max(1, n // 10) == 0:
                print(f"{desc} {i}/{n}")
            yield i


# ---- the model, as written in the seeds -------------------------------------
def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def mse_loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2) / inputs.shape[0]


step_size = 0.05


@jit
def update(params, x, y):
    grads = grad(mse_loss)(params, (x, y))
    return [(w - step_size * dw, b - step_size * db)
            for (w, b), (dw, db) in zip(params, grads)]


# ---- data and training --------------------------------------------------------
def load_digits(seed=0):
    from sklearn.datasets import load_digits as sk_digits
    d = sk_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[d.target]
    idx = np.random.RandomState(seed).permutation(len(x))
    n_test = len(x) // 5
    test, train = idx[:n_test], idx[n_test:]
    return (x[train], y[train]), (x[test], y[test])


def init_params(sizes, seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(m, n).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
            for m, n in zip(sizes[:-1], sizes[1:])]


def accuracy(params, x, y):
    return float(np.mean(np.argmax(np.asarray(jit(predict)(params, x)), 1) == np.argmax(y, 1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--png", default="loss_curve.png")
    args = ap.parse_args()

    (xtr, ytr), (xte, yte) = load_digits()
    params = init_params([64, 128, 64, 10])
    n_batches = len(xtr) // args.batch
    loss_fn = jit(mse_loss)
    losses = []
    t0 = time.perf_counter()
    for epoch in trange(args.epochs, desc="epochs"):
        perm = np.random.RandomState(epoch).permutation(len(xtr))
        for i in range(n_batches):
            b = perm[i * args.batch:(i + 1) * args.batch]
            params = update(params, xtr[b], ytr[b])
        losses.append(float(loss_fn(params, (xtr, ytr))))
    train_s = time.perf_counter() - t0

    print(f"trained {args.epochs} epochs ({args.epochs * n_batches} SGD steps) "
          f"in {train_s:.1f} s; final train loss {losses[-1]:.4f}")
    print(f"test accuracy: {accuracy(params, xte, yte) * 100:.1f}%  "
          f"(train accuracy: {accuracy(params, xtr, ytr) * 100:.1f}%)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.figure(figsize=(5, 3.2))
        plt.plot(range(1, len(losses) + 1), losses)
        plt.xlabel("epoch")
        plt.ylabel("train MSE")
        plt.title("MLP on digits, astjax")
        plt.tight_layout()
        plt.savefig(args.png, dpi=120)
        print(f"loss curve saved to {args.png}")
    except ImportError:
        print("matplotlib is not installed: no loss curve (pip install -e '.[examples]')")


if __name__ == "__main__":
    main()
