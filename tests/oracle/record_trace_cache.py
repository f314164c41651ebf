"""How many times JAX runs a function's Python body while staging one program, and a
recorder of JAX's counts (see README.md).

Each case builds its functions afresh (JAX's cache of control-flow jaxprs is global,
keyed by the function object, its input tree and avals: a fresh function starts
cold), stages `jit(program)` once and returns the number of times each counted body
ran. Written with `m.jax` / `m.lax` / `m.jnp`, the same code runs on JAX and astjax.
`STAGING_CACHED` names the cases astjax matches (a cache per open builder,
`primitives/cond.staged_once`, and for an inner `jit` / `checkpoint` one kept with the
function's shared state across programs, `staging.stage_once`); `KNOWN_DIFFERENT`
pins astjax's count where it differs (docs/coming_from_jax.md says why). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_trace_cache.py` writes trace_cache.json."""
import json
import sys
from pathlib import Path


def _counted(counts, name):
    def f(x, *static):
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


def _jit_twice(m, wrap, *extra, arg=1.0):
    """An inner `wrap(f)` called twice, on the same types, in one program."""
    def prog(n):
        jf = wrap(_counted(n, "f"))
        return lambda x: jf(x, *extra) + jf(x, *extra)
    return _stage(m, prog, arg)


def _fresh_twice(m, wrap):
    """`wrap(f)(x)` twice in one program, a fresh wrapper each time."""
    def prog(n):
        f = _counted(n, "f")
        return lambda x: wrap(f)(x) + wrap(f)(x)
    return _stage(m, prog, 1.0)


def inner_jit_fresh_wrapper(m):
    return _fresh_twice(m, m.jax.jit)


def inner_jit_static_same(m):
    return _jit_twice(m, lambda f: m.jax.jit(f, static_argnums=1), 2)


def inner_jit_static_other(m):
    def prog(n):
        jf = m.jax.jit(_counted(n, "f"), static_argnums=1)
        return lambda x: jf(x, 2) + jf(x, 3)
    return _stage(m, prog, 1.0)


def inner_jit_donate(m):
    return _jit_twice(m, lambda f: m.jax.jit(f, donate_argnums=0))


def inner_jit_inline(m):
    return _jit_twice(m, lambda f: m.jax.jit(f, inline=True))


def inner_jit_weak_and_strong(m):
    def prog(n):
        jf = m.jax.jit(_counted(n, "f"))
        return lambda x: jf(x) + jf(m.jnp.float32(1.0))
    return _stage(m, prog, 1.0)


def inner_jit_other_avals(m):
    def prog(n):
        jf = m.jax.jit(_counted(n, "f"))
        return lambda x: jf(x) + jf(x * m.jnp.ones(2)).sum()
    return _stage(m, prog, 1.0)


def inner_jit_python_scalar(m):
    def prog(n):
        jf = m.jax.jit(_counted(n, "f"))
        return lambda x: jf(x) + jf(2.0)
    return _stage(m, prog, 1.0)


def inner_jit_closure(m):
    def prog(n):
        def outer(x):
            g = m.jax.jit(lambda v: _counted(n, "f")(v) + x)
            return g(x) + g(x)
        return outer
    return _stage(m, prog, 1.0)


def checkpoint_fresh_wrapper(m):
    return _fresh_twice(m, m.jax.checkpoint)


def checkpoint_policy(m):
    return _jit_twice(m, lambda f: m.jax.checkpoint(
        f, policy=m.jax.checkpoint_policies.nothing_saveable))


def checkpoint_static(m):
    return _jit_twice(m, lambda f: m.jax.checkpoint(f, static_argnums=1), 2)


def checkpoint_no_cse(m):
    return _jit_twice(m, lambda f: m.jax.checkpoint(f, prevent_cse=False))


def remat_twice(m):
    return _jit_twice(m, m.jax.remat)


def custom_jvp_twice(m):
    def prog(n):
        f = m.jax.custom_jvp(_counted(n, "f"))
        f.defjvp(lambda p, t: (p[0] * 2.0, t[0] * 2.0))
        return lambda x: f(x) + f(x)
    return _stage(m, prog, 1.0)


def custom_vjp_twice(m):
    def prog(n):
        f = m.jax.custom_vjp(_counted(n, "f"))
        f.defvjp(lambda x: (x * 2.0, None), lambda r, g: (g * 2.0,))
        return lambda x: f(x) + f(x)
    return _stage(m, prog, 1.0)


def vmap_twice(m):
    return _jit_twice(m, m.jax.vmap, arg=m.jnp.ones(3))


def grad_twice(m):
    return _jit_twice(m, m.jax.grad)


# ---- across programs: JAX's caches are global

def _across(m, programs, *args):
    """Run each outer program of `programs(counts)` (a list of callables) in turn."""
    counts = {}
    for p in programs(counts):
        p(*args)
    return dict(sorted(counts.items()))


def _two_programs(m, wrap):
    """Two outer programs calling one `wrap(f)`."""
    def progs(n):
        g = wrap(_counted(n, "f"))
        return [m.jax.jit(lambda x: g(x) + 1.0), m.jax.jit(lambda x: g(x) * 3.0)]
    return _across(m, progs, 1.0)


def inner_jit_two_programs(m):
    return _two_programs(m, m.jax.jit)


def inner_jit_restaged(m):
    def progs(n):
        jf = m.jax.jit(_counted(n, "f"))
        p = m.jax.jit(lambda x, k: jf(x) + m.jnp.ones(k).sum(), static_argnums=1)
        return [lambda x: p(x, 2), lambda x: p(x, 3)]
    return _across(m, progs, 1.0)


def inner_jit_other_shape(m):
    def progs(n):
        jf = m.jax.jit(_counted(n, "f"))
        p = m.jax.jit(lambda x, y: jf(x) + y.sum())
        return [lambda x: p(x, m.jnp.ones(2)), lambda x: p(x, m.jnp.ones(3))]
    return _across(m, progs, 1.0)


def inner_jit_eager_then_staged(m):
    def progs(n):
        jf = m.jax.jit(_counted(n, "f"))
        return [jf, m.jax.jit(lambda x: jf(x) + 1.0)]
    return _across(m, progs, 1.0)


def inner_jit_staged_then_eager(m):
    def progs(n):
        jf = m.jax.jit(_counted(n, "f"))
        return [m.jax.jit(lambda x: jf(x) + 1.0), jf]
    return _across(m, progs, 1.0)


def checkpoint_two_programs(m):
    return _two_programs(m, m.jax.checkpoint)


def cond_two_programs(m):
    def progs(n):
        f = _counted(n, "f")
        return [m.jax.jit(lambda x: m.lax.cond(x > 0, f, f, x) + 1.0),
                m.jax.jit(lambda x: m.lax.cond(x > 0, f, f, x) * 3.0)]
    return _across(m, progs, 1.0)


CASES = [cond_same, two_conds, switch_repeat, cond_other_avals, while_same_body,
         cond_in_loop_body, map_twice, checkpoint_twice, inner_jit_twice,
         inner_jit_fresh_wrapper, inner_jit_static_same, inner_jit_static_other,
         inner_jit_donate, inner_jit_inline, inner_jit_weak_and_strong, inner_jit_other_avals,
         inner_jit_python_scalar, inner_jit_closure, checkpoint_fresh_wrapper,
         checkpoint_policy, checkpoint_static, checkpoint_no_cse, remat_twice,
         custom_jvp_twice, custom_vjp_twice, vmap_twice, grad_twice,
         inner_jit_two_programs, inner_jit_restaged, inner_jit_other_shape,
         inner_jit_eager_then_staged, inner_jit_staged_then_eager, checkpoint_two_programs,
         cond_two_programs]
STAGING_CACHED = ["cond_same", "two_conds", "switch_repeat", "cond_other_avals",
                  "while_same_body", "cond_in_loop_body", "map_twice", "checkpoint_twice",
                  "inner_jit_twice", "inner_jit_fresh_wrapper", "inner_jit_static_same",
                  "inner_jit_static_other", "inner_jit_donate", "inner_jit_inline",
                  "inner_jit_weak_and_strong", "inner_jit_other_avals",
                  "inner_jit_python_scalar", "inner_jit_closure", "checkpoint_fresh_wrapper",
                  "checkpoint_policy", "checkpoint_static", "checkpoint_no_cse", "remat_twice",
                  "custom_jvp_twice", "custom_vjp_twice", "vmap_twice", "grad_twice",
                  "inner_jit_two_programs", "inner_jit_restaged", "inner_jit_other_shape",
                  "inner_jit_eager_then_staged", "inner_jit_staged_then_eager",
                  "checkpoint_two_programs"]
# JAX's cache of control-flow functions is global too; astjax's lives per open builder
# (docs/coming_from_jax.md): what these cases count on astjax, pinned
KNOWN_DIFFERENT = {"cond_two_programs": {"f": 2}}


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
