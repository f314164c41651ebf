"""How many times JAX runs a function's Python body while staging one program, and a
recorder of JAX's counts (see README.md).

Each case builds its functions afresh (JAX's cache of control-flow jaxprs is global,
keyed by the function object, its input tree and avals: a fresh function starts
cold), stages `jit(program)` once and returns the number of times each counted body
ran. Written with `m.jax` / `m.lax` / `m.jnp`, the same code runs on JAX and astjax.
`STAGING_CACHED` names the cases astjax matches (a cache per open builder in
`primitives/cond.stage_sub`); the others are stored for the work left (an inner `jit`
or a `checkpoint` called twice: JAX stages its body once). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_trace_cache.py` writes trace_cache.json."""
import json
import sys
from pathlib import Path


def _counted(counts, name):
    def f(x):
        counts[name] = counts.get(name, 0) + 1
        return x * 2.0
    return f


def _stage(m, program, *args):
    counts = {}
    m.jax.jit(program(counts))(*args)
    return dict(sorted(counts.items()))


def cond_same(m):
    def prog(n):
        f = _counted(n, "f")
        return lambda p, x: m.lax.cond(p, f, f, x)
    return _stage(m, prog, True, 1.0)


def two_conds(m):
    def prog(n):
        f, g = _counted(n, "f"), _counted(n, "g")
        return lambda p, x: m.lax.cond(p, f, g, x) + m.lax.cond(p, f, g, x)
    return _stage(m, prog, True, 1.0)


def switch_repeat(m):
    def prog(n):
        f, g = _counted(n, "f"), _counted(n, "g")
        return lambda i, x: m.lax.switch(i, [f, f, g], x)
    return _stage(m, prog, 1, 1.0)


def cond_other_avals(m):
    def prog(n):
        f = _counted(n, "f")
        return lambda p, x: m.lax.cond(p, f, f, x) + m.lax.cond(p, f, f, x * m.jnp.ones(2)).sum()
    return _stage(m, prog, True, 1.0)


def while_same_body(m):
    def prog(n):
        f = _counted(n, "f")
        c = lambda v: v < 10.0
        return lambda x: m.lax.while_loop(c, f, x) + m.lax.while_loop(c, f, x)
    return _stage(m, prog, 1.0)


def cond_in_loop_body(m):
    def prog(n):
        f = _counted(n, "f")

        def body(i, c):
            return m.lax.cond(c > 3.0, f, f, c) + m.lax.cond(c > 5.0, f, f, c)
        return lambda x: m.lax.fori_loop(0, 3, body, x)
    return _stage(m, prog, 1.0)


def map_twice(m):
    def prog(n):
        f = _counted(n, "f")
        return lambda xs: m.lax.map(f, xs) + m.lax.map(f, xs)
    return _stage(m, prog, m.jnp.ones(3))


def checkpoint_twice(m):
    def prog(n):
        cf = m.jax.checkpoint(_counted(n, "f"))
        return lambda x: cf(x) + cf(x)
    return _stage(m, prog, 1.0)


def inner_jit_twice(m):
    def prog(n):
        jf = m.jax.jit(_counted(n, "f"))
        return lambda x: jf(x) + jf(x)
    return _stage(m, prog, 1.0)


CASES = [cond_same, two_conds, switch_repeat, cond_other_avals, while_same_body,
         cond_in_loop_body, map_twice, checkpoint_twice, inner_jit_twice]
STAGING_CACHED = ["cond_same", "two_conds", "switch_repeat", "cond_other_avals",
                  "while_same_body", "cond_in_loop_body", "map_twice"]


def record():
    import jax
    import jax.numpy as jnp
    from jax import lax

    m = type("M", (), {"jax": jax, "jnp": jnp, "lax": lax})
    out = {"jax": jax.__version__}
    out.update((c.__name__, c(m)) for c in CASES)
    path = Path(__file__).with_name("trace_cache.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    record()
