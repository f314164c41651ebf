"""Chains of transformations, every stage called eagerly in turn, JAX vs astjax:

    nice -n 5 /path/to/jax-env/bin/python tests/fuzz/chain_sweep.py [DEPTH [NAME,...]]
        [--part I/N] [--cases A:B]

`--part I/N` runs every N-th case from the I-th (I in 0..N-1) of the ordered list of
(function, chain, order) cases, a slice spread over every function and chain, so that N
runs (one per I) together run the whole sweep; `--cases A:B` runs the cases numbered
A..B-1 of that list (of the part, with both). Depth 3 is ~15,700 cases: run it in parts.

Each small function (custom_jvp / custom_vjp rules, scan, fori_loop, cond, switch on a
pytree, checkpoint, a Python `if` on a shape, a Python `if` / `while` on a value (which
JAX runs as an equivalent lax program), grad of a pytree, ...) is wrapped in DEPTH transformations from `STAGES`
(grad of a sum, jit, vmap, jacfwd, jacrev, checkpoint, value_and_grad, hessian), and
every intermediate wrapper is called on one input, innermost first and outermost first:
a wrapper called eagerly must not change what a wrapper around it computes (grad(d1)
after an eager d1 = grad(g) call returned d1's value). Values must agree with JAX's
(rtol 2e-4) and an error must be an instance of the builtin class JAX raises. Needs the
real `jax` and astjax importable in one interpreter (JAX is the oracle)."""
from __future__ import annotations

import functools
import itertools
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

X = np.array([0.3, -0.7, 1.1], np.float32)
STAGES = ["grad_sum", "jit", "vmapsum", "jacfwd_sum", "jacrev_sum", "ckpt", "vg", "hess_sum"]


def make(jax, jnp):
    """{name: f} of small R^n -> R functions written against the module `jax`."""
    lax = jax.lax
    fs = {}

    def poly(x):
        return jnp.sum(x ** 3 - 2.0 * x)
    fs["poly"] = poly

    def trig(x):
        return jnp.sum(jnp.sin(x) * jnp.cos(2.0 * x))
    fs["trig"] = trig

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x)
    @cj.defjvp
    def cj_jvp(p, t):
        return cj(p[0]), jnp.cos(p[0]) * t[0]
    fs["custom_jvp"] = lambda x: jnp.sum(cj(x) * x)

    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def pw(n, x):
        return x ** n
    @pw.defjvp
    def pw_jvp(n, p, t):
        return pw(n, p[0]), n * pw(n - 1, p[0]) * t[0]
    fs["custom_jvp_nondiff"] = lambda x: jnp.sum(pw(4, x))

    @jax.custom_vjp
    def cv(x):
        return jnp.exp(x)
    cv.defvjp(lambda x: (jnp.exp(x), jnp.exp(x)), lambda r, g: (r * g,))
    fs["custom_vjp"] = lambda x: jnp.sum(cv(x) * x)

    def loop(x):
        def body(c, xi):
            return c * 0.9 + jnp.sin(xi * c), c
        c, ys = lax.scan(body, 1.0, x)
        return c + jnp.sum(ys)
    fs["scan"] = loop

    def wl(x):
        return jnp.sum(lax.fori_loop(0, 3, lambda i, v: v * jnp.cos(v), x))
    fs["fori"] = wl

    def branch(x):
        return jnp.sum(lax.cond(jnp.sum(x) > 0, lambda v: v ** 2, lambda v: jnp.sin(v), x))
    fs["cond"] = branch

    def rem(x):
        return jnp.sum(jax.checkpoint(lambda v: jnp.sin(jnp.sin(v)))(x))
    fs["checkpoint"] = rem

    def pyif(x):
        if x.shape[0] > 2:
            return jnp.sum(jnp.sinc(x))
        return jnp.sum(x)
    fs["sinc"] = pyif

    def logsm(x):
        return jnp.sum(jax.nn.log_softmax(x) * x) + jax.nn.logsumexp(x)
    fs["softmax"] = logsm

    def norm(x):
        return jnp.linalg.norm(x) + jnp.sum(jax.nn.relu(x))
    fs["norm_relu"] = norm

    # Python control flow on values: astjax converts a Python `if` / `while` on an array
    # (docs/coming_from_jax.md); JAX, which cannot stage them, runs an equivalent lax program
    converts = jax.__name__ == "astjax"

    def pyif(x):
        if converts:
            if jnp.sum(x) > 0.5:
                return jnp.sum(x ** 2)
            return jnp.sum(jnp.sin(x))
        return lax.cond(jnp.sum(x) > 0.5, lambda: jnp.sum(x ** 2), lambda: jnp.sum(jnp.sin(x)))
    fs["py_if"] = pyif

    def pywhile(x):
        s = jnp.sum(x ** 2) + 0.1
        if converts:
            while s < 10.0:
                s = s * 1.5 + jnp.sum(x ** 2)
            return s
        # (JAX cannot reverse a while_loop, which astjax does: a bounded loop masked
        # once done has the values and derivatives of the while on these inputs)
        return lax.fori_loop(0, 30, lambda i, s: jnp.where(s < 10.0, s * 1.5 + jnp.sum(x ** 2),
                                                           s), s)
    fs["py_while"] = pywhile

    def tree(x):
        p = {"w": x, "b": (x[0], jnp.cos(x))}
        g = jax.grad(lambda q: jnp.sum(q["w"] * q["b"][0]) +
                     jnp.sum(jnp.tanh(q["b"][1] * q["w"])))(p)
        return jnp.sum(g["w"]) + g["b"][0] + jnp.sum(g["b"][1] ** 2)
    fs["pytree_grad"] = tree

    def switch(x):
        i = jnp.clip(jnp.floor(jnp.sum(x)).astype(jnp.int32), 0, 2)
        out = lax.switch(i, [lambda t: t["a"] * 2.0, lambda t: jnp.exp(t["a"]) - t["b"],
                             lambda t: t["b"] ** 3], {"a": x, "b": jnp.sin(x)})
        return jnp.sum(out)
    fs["switch_tree"] = switch
    return fs


def stage(J, name):
    """The transformation `name` of module `J` as a function -> function."""
    jnp = J.numpy
    return {
        "grad_sum": lambda f: (lambda x: jnp.sum(J.grad(f)(x) ** 2)),
        "jit": J.jit,
        "vmapsum": lambda f: (lambda x: jnp.sum(J.vmap(lambda r: f(r * x))(
            jnp.stack([x, 2 * x])))),
        "jacfwd_sum": lambda f: (lambda x: jnp.sum(J.jacfwd(f)(x))),
        "jacrev_sum": lambda f: (lambda x: jnp.sum(J.jacrev(f)(x))),
        "hess_sum": lambda f: (lambda x: jnp.sum(J.hessian(f)(x))),
        "ckpt": J.checkpoint,
        "vg": lambda f: (lambda x: sum(J.tree_util.tree_leaves(J.value_and_grad(f)(x)))),
    }[name]


def run(J, f, chain, inner_first):
    """Each wrapper of `f` along `chain` called on X -> [value or exception MRO names]."""
    built = [f]
    for name in chain:
        built.append(stage(J, name)(built[-1]))
    order = range(len(built)) if inner_first else reversed(range(len(built)))
    out = {}
    for i in order:
        try:
            out[i] = np.asarray(built[i](X), np.float64)
        except Exception as e:   # (compared by class with JAX's)
            out[i] = tuple(c.__name__ for c in type(e).__mro__)
    return [out[i] for i in range(len(built))]


def _agree(a, b):
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and a[0] in b
    return a.shape == b.shape and np.allclose(a, b, rtol=2e-4, atol=1e-5, equal_nan=True)


def cases(names, depth):
    """[(function name, chain, inner_first)], the sweep's cases in their fixed order."""
    return [(f, chain, inner_first) for f in names
            for chain in itertools.product(STAGES, repeat=depth)
            if chain.count("hess_sum") <= 1 for inner_first in (True, False)]


def main(depth=2, only=(), part=(0, 1), span=(0, None)):
    import jax
    import jax.numpy as jnp

    import astjax
    import astjax.numpy as ajnp
    ref, got = make(jax, jnp), make(astjax, ajnp)
    todo = cases([f for f in ref if not only or f in only], depth)[part[0]::part[1]]
    todo = todo[span[0]:span[1]]
    total = bad = 0
    for fname, chain, inner_first in todo:
        total += 1
        r = run(jax, ref[fname], chain, inner_first)
        g = run(astjax, got[fname], chain, inner_first)
        if not all(_agree(a, b) for a, b in zip(r, g)):
            bad += 1
            print("DIFF", fname, chain, "inner first" if inner_first else
                  "outer first", "\n  JAX   ", r, "\n  astjax", g, flush=True)
        if total % 50 == 0:
            print(f"... {total}/{len(todo)} run, {bad} differ", flush=True)
    print(f"{total - bad}/{total} agree")
    return 1 if bad else 0


def _cli(argv):
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("depth", nargs="?", type=int, default=2)
    p.add_argument("names", nargs="?", default="", help="comma-separated function names")
    p.add_argument("--part", default="0/1", help="I/N: every N-th case from the I-th")
    p.add_argument("--cases", default=":", help="A:B: the cases numbered A..B-1")
    a = p.parse_args(argv)
    i, n = map(int, a.part.split("/"))
    lo, hi = a.cases.split(":")
    return main(a.depth, tuple(filter(None, a.names.split(","))), (i, n),
                (int(lo or 0), int(hi) if hi else None))


if __name__ == "__main__":
    sys.exit(_cli(sys.argv[1:]))
