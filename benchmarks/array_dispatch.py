"""CPU time per jit call with device-array arguments: astjax's Python dispatch, an upper
bound for astjax's executables under jaxlib's C++ `PjitFunction`, and JAX.

    python benchmarks/array_dispatch.py astjax      # astjax's dispatch
    python benchmarks/array_dispatch.py prototype   # astjax executables, C++ dispatch
    python benchmarks/array_dispatch.py jax         # jax 0.10.2 (its own process)

`prototype` hands jaxlib's `PjitFunction` the raw jaxlib arrays astjax's Arrays hold
and runs astjax's compiled executable on them -- what astjax would get if its `Array`
were jaxlib's `ArrayImpl` (benchmarks/README.md says why it is not). Rows: two f32[3]
Arrays, an 8-leaf parameter tree in and two arrays out, per-example grads and the MLP
step of the small MLP [8, 16, 16, 4] (batch 32). Process time (all threads, XLA's
included), min and median of `rounds` timed loops.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from workloads import _small_mlp


def _cpp_prototype(jitted, *args):
    """A PjitFunction running `jitted`'s executable for `args` on raw jaxlib arrays."""
    from astjax.codegen import cpp_jit, runtime
    entry, _ = jitted._entry(args, {})
    if entry.executable is None:
        entry.compile()
    exe = entry.executable
    if not cpp_jit._settings:
        cpp_jit._register_settings()

    def miss(*raw):
        flat = runtime.cpp_pytrees.flatten(raw)[0]
        outs = exe.exe.execute_sharded(list(flat)).consume_with_handlers(exe.handlers)
        out = entry.unflatten(outs)
        sh, n, k = exe._sharding, len(flat), len(outs)
        return out, cpp_jit._FastPath(
            exe.exe, runtime.cpp_pytrees.flatten(out)[1], [sh] * n, [sh] * k,
            exe.out_avals, [True] * k, [True] * n, [None] * n, []), False
    return cpp_jit._jax.pjit("prototype", None, miss, [], [], object(),
                             runtime.cpp_pytrees, cpp_jit._no_fallback, cpp_jit._cache)


def main(which, rounds=7):
    if which == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import astjax as jax
        import astjax.numpy as jnp
    ns, params, x, y = _small_mlp(jax, jnp)
    loss, update = ns["loss"], ns["update"]
    pex = jax.jit(jax.vmap(lambda p, a, b: jax.grad(loss)(p, (a[None], b[None])),
                           in_axes=(None, 0, 0)))
    step = jax.jit(update)
    two = jax.jit(lambda a, b: a * b + 1)
    tree = jax.jit(lambda p, a, b: (a + 1.0, b * 2.0))
    a, b = jnp.ones(3), jnp.ones(3)
    calls = {"two arrays": (two, (a, b)), "8-leaf tree": (tree, (params, x, y)),
             "per-example grads": (pex, (params, x, y)), "MLP step": (step, (params, x, y))}
    if which == "prototype":
        from astjax import tree_util
        raw = [tree_util.tree_map(lambda v: v._buf, args) for _, args in calls.values()]
        calls = {k: (_cpp_prototype(f, *args), r)
                 for (k, (f, args)), r in zip(calls.items(), raw)}
    state = {}
    cases = {}
    for name, (f, args) in calls.items():
        if name == "MLP step":   # the parameters are the step's own results
            state["p"] = args[0]

            def run(f=f, args=args):
                state["p"] = f(state["p"], *args[1:])
                return state["p"]
        else:
            def run(f=f, args=args):
                return f(*args)
        cases[name] = run
    res = {k: [] for k in cases}
    for run in cases.values():
        jax.block_until_ready(run())
    for _ in range(rounds):
        for name, run in cases.items():
            n = 20000 if name in ("two arrays", "8-leaf tree") else 3000
            t0 = time.process_time()
            for _ in range(n):
                out = run()
            jax.block_until_ready(out)
            res[name].append((time.process_time() - t0) / n * 1e6)
    for name, v in res.items():
        print(f"{which:9s} {name:18s} min {min(v):7.2f}  median {float(np.median(v)):7.2f} µs")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "astjax",
         int(sys.argv[2]) if len(sys.argv) > 2 else 7)
