"""An RNN written as a plain Python loop, compiled by astjax.

The `for t in range(T):` loop with `hs.append(h)` becomes ONE `scan` in the IR, so
compiling it takes about the same time for T = 10, 100 or 1000 steps (tracing
unrolls the loop: its compile time grows with T).

Run: python examples/rnn_python_loop.py
"""
import time

import numpy as np

import astjax
import astjax.numpy as jnp


def rnn(params, xs):
    W_h, W_x, b = params
    h = jnp.zeros(W_h.shape[0])
    hs = []
    for t in range(xs.shape[0]):
        h = jnp.tanh(W_h @ h + W_x @ xs[t] + b)
        hs.append(h)
    return jnp.stack(hs)


def numpy_rnn(params, xs):
    W_h, W_x, b = params
    h = np.zeros(W_h.shape[0], np.float32)
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(W_h @ h + W_x @ xs[t] + b)
        hs.append(h)
    return np.stack(hs)


def main():
    rng = np.random.RandomState(0)
    hidden, features = 32, 8
    params = (rng.randn(hidden, hidden).astype(np.float32) * 0.1,
              rng.randn(hidden, features).astype(np.float32) * 0.1,
              np.zeros(hidden, np.float32))
    xs = rng.randn(5, features).astype(np.float32)
    print("The jaxpr of the RNN (one scan, whatever T is):")
    print(astjax.make_jaxpr(rnn)(params, xs))
    print()
    print(f"{'T':>6} {'first call (stage + compile + run)':>36} {'max |astjax - numpy|':>22}")
    for T in (10, 100, 1000):
        xs = rng.randn(T, features).astype(np.float32)
        f = astjax.jit(rnn)
        t0 = time.perf_counter()
        out = f(params, xs).block_until_ready()
        dt = time.perf_counter() - t0
        err = np.abs(np.asarray(out) - numpy_rnn(params, xs)).max()
        print(f"{T:>6} {dt * 1000:>33.1f} ms {err:>22.2e}")


if __name__ == "__main__":
    main()
