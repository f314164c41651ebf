"""A small typed user program: an MLP trained with jit/grad/vmap on astjax.

`tests/test_typing.py` runs `mypy --strict` on this file; it must pass. It is also a
runnable program (`python tests/typing/mlp_train.py` prints the falling loss)."""
from __future__ import annotations

import astjax
import astjax.numpy as jnp
from astjax import random, tree_util
from astjax.typing import Array, ArrayLike, PyTree

Params = list[tuple[Array, Array]]


def init(key: Array, sizes: list[int]) -> Params:
    """He-initialised weights and zero biases for each layer."""
    params: Params = []
    keys = random.split(key, len(sizes) - 1)
    for k, (n_in, n_out) in zip(keys, zip(sizes[:-1], sizes[1:])):
        w = random.normal(k, (n_in, n_out)) * jnp.sqrt(2.0 / n_in)
        params.append((w, jnp.zeros(n_out)))
    return params


def predict(params: Params, x: ArrayLike) -> Array:
    """The network on one example."""
    h = jnp.asarray(x)
    for w, b in params[:-1]:
        h = astjax.nn.relu(h @ w + b)
    w, b = params[-1]
    return h @ w + b


def loss(params: Params, xs: Array, ys: Array) -> Array:
    """Mean squared error over a batch (per-example `predict` vectorised by vmap)."""
    preds = astjax.vmap(predict, in_axes=(None, 0))(params, xs)
    return jnp.mean((preds - ys) ** 2)


@astjax.jit
def step(params: Params, xs: Array, ys: Array) -> tuple[Params, Array]:
    """One SGD step: the new parameters and the loss before it."""
    value, grads = astjax.value_and_grad(loss)(params, xs, ys)
    new: Params = tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return new, value


def relative_error(pred: astjax.Array, target: astjax.Array) -> astjax.Array:
    """`|pred - target| / |target|`, written against `astjax.Array` (JAX's `jax.Array`)."""
    return jnp.abs(pred - target).sum() / jnp.abs(target).sum()


def count(tree: PyTree) -> int:
    """How many numbers a pytree of arrays holds."""
    return sum(int(leaf.size) for leaf in tree_util.tree_leaves(tree))


def main() -> list[float]:
    """Train for a few steps; the losses."""
    key = random.key(0)
    k_init, k_x = random.split(key)
    params = init(k_init, [3, 16, 1])
    xs = random.normal(k_x, (64, 3))
    ys = jnp.sum(xs, axis=1, keepdims=True)
    losses: list[float] = []
    for _ in range(20):
        params, value = step(params, xs, ys)
        losses.append(float(value))
    g = astjax.grad(loss)(params, xs, ys)
    assert count(g) == count(params)
    err: float = float(relative_error(astjax.vmap(predict, in_axes=(None, 0))(params, xs), ys))
    assert err < 1.0
    return losses


if __name__ == "__main__":
    print(main())
