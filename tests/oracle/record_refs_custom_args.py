"""A mutable array reference (`jax.new_ref`) passed as an *argument* to a `custom_jvp`
/ `custom_vjp` function -- read or written in the function, read in its rules, kept as
a residual and written by `bwd`, with `nondiff_argnums` and `symbolic_zeros` -- under
`jit`, `grad`, `jvp`, `vjp`, `vmap`, `checkpoint` and a `scan` body, and a reference
created inside a differentiated function passed on (issue 13), recorded from JAX 0.10.2:
the results and the reference's final value, or the builtin class of JAX's error.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`); run
with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_refs_custom_args.py`
writes refs_custom_args.json; `tests/test_refs_custom_args.py` runs the same cases on
astjax.
"""
import functools
import json
from pathlib import Path

from record_refs_custom import _v, run

HERE = Path(__file__).resolve().parent


def jvp_read(J, nd=False, sz=False):
    @functools.partial(J.jax.custom_jvp, nondiff_argnums=(1,) if nd else ())
    def f(x, r):
        return x * r[...]

    if nd:
        f.defjvp(lambda r, p, t: (f(p[0], r), t[0] * r[...]))
    else:
        f.defjvp(lambda p, t: (f(*p), t[0] * p[1][...]), symbolic_zeros=sz)
    return f


def jvp_write(J):
    @J.jax.custom_jvp
    def f(x, r):
        r[...] = x
        return x * 2

    @f.defjvp
    def f_jvp(p, t):
        return f(*p), t[0] * 2
    return f


def jvp_tangent_ref(J):
    """The rule reads and writes the reference's tangent (a reference holding zeros)."""
    @J.jax.custom_jvp
    def f(x, r):
        return x * r[...]

    @f.defjvp
    def f_jvp(p, t):
        z = t[1][...]
        t[1][...] = z + 5.0
        return f(*p), t[0] * p[1][...] + z
    return f


def vjp_read(J, nd=False, sz=False):
    @functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,) if nd else ())
    def f(x, r):
        return x * r[...]

    if nd:
        f.defvjp(lambda x, r: (f(x, r), r[...]), lambda r, res, g: (g * res,))
    elif sz:
        f.defvjp(lambda x, r: (f(x.value, r.value), r.value[...]),
                 lambda res, g: (g * res, None), symbolic_zeros=True)
    else:
        f.defvjp(lambda x, r: (f(x, r), r[...]), lambda res, g: (g * res, None))
    return f


def vjp_write(J):
    @J.jax.custom_vjp
    def f(x, r):
        r[...] = x
        return x * 2

    def fwd(x, r):
        r[...] = x + 100
        return x * 2, None

    f.defvjp(fwd, lambda res, g: (g * 2, None))
    return f


def vjp_bwd_ref(J):
    """fwd keeps the reference as a residual; bwd adds the cotangent into it."""
    @J.jax.custom_vjp
    def f(x, r):
        return x * 2

    def bwd(res, g):
        res[...] += g
        return (g * 2, None)

    f.defvjp(lambda x, r: (x * 2, r), bwd)
    return f


def vjp_ct_for_ref(J):
    """bwd returns a value (not None) for the reference argument."""
    @J.jax.custom_vjp
    def f(x, r):
        return x * r[...]

    f.defvjp(lambda x, r: (f(x, r), r[...]), lambda res, g: (g * res, g))
    return f


def _scan_grad(J, f, r):
    def loop(x):
        return J.lax.scan(lambda c, _: (f(c, r), None), x, None, length=2)[0]
    return J.jax.grad(loop)(3.0)


def _inner(J, f, wrap):
    def g(x):
        q = J.jax.new_ref(x * 5)
        return f(x, q) + q[...]
    return wrap(g)(3.0)


RUNS = {
    "eager": lambda J, f, r: f(3.0, r),
    "jit": lambda J, f, r: J.jax.jit(f)(3.0, r),
    "grad": lambda J, f, r: J.jax.grad(f)(3.0, r),
    "jit_grad": lambda J, f, r: J.jax.jit(J.jax.grad(f))(3.0, r),
    "jvp": lambda J, f, r: J.jax.jvp(lambda x: f(x, r), (3.0,), (1.0,)),
    "vjp": lambda J, f, r: J.jax.vjp(lambda x: f(x, r), 3.0)[1](1.0),
    "vmap": lambda J, f, r: J.jax.vmap(f, in_axes=(0, None))(J.jnp.array([1.0, 3.0]), r),
    "vmap_grad": lambda J, f, r: J.jax.vmap(J.jax.grad(f), in_axes=(0, None))(
        J.jnp.array([1.0, 3.0]), r),
    "vmap_mapped": lambda J, f, r: J.jax.vmap(f)(J.jnp.array([3.0, 4.0]), r),
    "checkpoint_grad": lambda J, f, r: J.jax.grad(J.jax.checkpoint(f))(3.0, r),
    "scan_grad": _scan_grad,
    "inner_eager": lambda J, f, r: _inner(J, f, lambda g: g),
    "inner_grad": lambda J, f, r: _inner(J, f, J.jax.grad),
    "inner_jit": lambda J, f, r: _inner(J, f, J.jax.jit),
}

MAKERS = {
    "jvp_read": jvp_read, "jvp_write": jvp_write, "jvp_tangent_ref": jvp_tangent_ref,
    "jvp_nondiff": functools.partial(jvp_read, nd=True),
    "jvp_symbolic_zeros": functools.partial(jvp_read, sz=True),
    "vjp_read": vjp_read, "vjp_write": vjp_write, "vjp_bwd_ref": vjp_bwd_ref,
    "vjp_ct_for_ref": vjp_ct_for_ref, "vjp_nondiff": functools.partial(vjp_read, nd=True),
    "vjp_symbolic_zeros": functools.partial(vjp_read, sz=True),
}

ALL = tuple(RUNS)
SOME = ("eager", "jit", "grad", "jit_grad", "vmap")
GRID = {"jvp_read": ALL, "jvp_write": ALL, "vjp_read": ALL, "vjp_write": ALL,
        "vjp_bwd_ref": ("eager", "jit", "grad", "jit_grad", "vjp", "vmap", "scan_grad"),
        "jvp_tangent_ref": ("grad", "jit_grad", "jvp"),
        "jvp_nondiff": SOME, "vjp_nondiff": SOME, "jvp_symbolic_zeros": SOME,
        "vjp_symbolic_zeros": SOME, "vjp_ct_for_ref": ("grad", "jit_grad")}


def _case(maker, how):
    def case(J):
        init = J.jnp.array([1.0, 2.0]) if how == "vmap_mapped" else J.jnp.float32(2.0)
        r = J.jax.new_ref(init)
        out = RUNS[how](J, MAKERS[maker](J), r)
        return [_v(o) for o in J.jax.tree_util.tree_leaves(out)] + [_v(r[...])]
    case.__name__ = f"{maker}_{how}"
    return case


CASES = {c.__name__: c for c in (_case(m, h) for m, hows in GRID.items() for h in hows)}


def main():
    import types
    import jax
    import jax.numpy as jnp
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=jax.lax)
    out = {"jax": jax.__version__, "cases": {n: run(c, J) for n, c in CASES.items()}}
    (HERE / "refs_custom_args.json").write_text(json.dumps(out, indent=1, sort_keys=True)
                                                + "\n")


if __name__ == "__main__":
    main()
