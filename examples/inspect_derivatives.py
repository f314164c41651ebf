"""Read the derivatives astjax generates, as Python source.

    python examples/inspect_derivatives.py

`astjax.source(astjax.grad(f), *example_args)` prints the gradient of `f` as plain
Python: the forward pass, then the backward pass (cotangents `ct_*`), one operation
per line, each group under a comment with the line of *your* code it comes from.
Python `for` loops and `if`s in your function stay `for` loops and `if`s in the
derivative. The printed code is real: `astjax.source_function` compiles it, and
astjax stages it again under `jit` with the same results — checked below.
"""
import numpy as np

import astjax
import astjax.numpy as jnp


# ---- the seeds' MLP and its mean-squared-error loss --------------------------------
def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def mse_loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)


# ---- a function with a Python loop and an `if` -------------------------------------
def clipped_growth(x):
    y = x
    for t in range(4):
        if jnp.sum(y) > 1.0:
            y = jnp.tanh(y) * 0.9
        else:
            y = y * 1.5 + 0.1
    return jnp.sum(y * y)


def show(title, fn, *args):
    print(f"# {'=' * 76}\n# {title}\n# {'=' * 76}")
    print(astjax.source(fn, *args))
    # the generated source is runnable, and astjax stages it again
    regenerated = astjax.source_function(fn, *args)
    expected = astjax.jit(fn)(*args)
    got = astjax.jit(regenerated)(*args)
    same = all(np.allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)
               for a, b in zip(astjax.tree_util.tree_leaves(expected),
                               astjax.tree_util.tree_leaves(got)))
    print(f"# re-staged generated source gives the same gradient: {same}\n")
    return same


def main():
    rng = np.random.RandomState(0)
    sizes = [4, 5, 2]
    params = [(rng.randn(m, n).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
              for m, n in zip(sizes[:-1], sizes[1:])]
    batch = (rng.randn(3, sizes[0]).astype(np.float32),
             rng.randn(3, sizes[-1]).astype(np.float32))
    ok = show("astjax.source(astjax.grad(mse_loss), params, batch)",
              astjax.grad(mse_loss), params, batch)

    x = np.array([0.3, -0.2, 0.4], np.float32)
    ok &= show("astjax.source(astjax.grad(clipped_growth), x)",
               astjax.grad(clipped_growth), x)
    if not ok:
        raise SystemExit("generated source did not round-trip")


if __name__ == "__main__":
    main()
