"""Programs JAX 0.10.2 computes (or refuses with a given error) that astjax refused or
computed differently before (issue 13, the remaining items): a `while_loop` condition
writing a `Ref`, `lax.linalg.schur` with `select_callable` and without sorting,
`lax.composite` whose decomposition returns None, a list appended to after the Python
loop that built it, a `Ref` created in a differentiated function kept as a custom_vjp
residual and read by bwd, and a traced value in `nondiff_argnums` under eager `grad` /
`vmap`.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`) that
returns a list of values; run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_refusals_remaining.py` writes
refusals_remaining.json ({"ok": [leaves as float lists]} or {"error": class name});
`tests/test_refusals_remaining.py` runs the same cases on astjax.
"""
import functools
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
# an error's verdict: the first of these its class derives from (by name)
CLASSES = ("UnexpectedTracerError", "NotImplementedError", "TypeError", "ValueError",
           "RuntimeError", "Exception")


def _leaves(J, out):
    return [np.asarray(x, np.float64).tolist() for x in J.jax.tree_util.tree_leaves(out)]


def run(case, J):
    """{"ok": the result's leaves} or {"error": the class of the error}."""
    try:
        return {"ok": _leaves(J, case(J))}
    except Exception as e:   # noqa: BLE001 (the verdict is the class)
        names = [c.__name__ for c in type(e).__mro__]
        return {"error": next(n for n in CLASSES if n in names)}


# ---- a while_loop condition writing a Ref (JAX: once per step, before the body)

def _counting_loop(J, start, inner=False):
    def f(x):
        r = J.jax.new_ref(J.jnp.float32(0.0)) if inner else outer

        def cond(c):
            r[...] += c + 1.0
            return c < 5.0
        out = J.lax.while_loop(cond, lambda c: c + 2.0, x)
        return (out, r[...]) if inner else out
    outer = None if inner else J.jax.new_ref(J.jnp.float32(0.0))
    return f, outer


def while_cond_ref_eager(J):
    f, r = _counting_loop(J, 0.0)
    return [f(0.0), r[...]]


def while_cond_ref_jit(J):
    f, r = _counting_loop(J, 0.0)
    return [J.jax.jit(f)(1.0), r[...]]


def while_cond_ref_inner_jit(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.jit(f)(0.0)


def while_cond_ref_inner_vmap(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.vmap(f)(J.jnp.array([0.0, 3.0, 9.0]))


def while_cond_ref_inner_jvp(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.jvp(f, (0.0,), (1.0,))


def while_cond_ref_zero_steps(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.jit(f)(7.0)


def while_cond_and_body_write(J):
    r = J.jax.new_ref(J.jnp.float32(0.0))

    def cond(c):
        r[...] += 1.0
        return c < 5.0

    def body(c):
        r[...] += 10.0
        return c + 2.0
    return [J.jax.jit(lambda x: J.lax.while_loop(cond, body, x))(0.0)]


def while_cond_writes_body_writes_other(J):
    def f(x):
        r = J.jax.new_ref(J.jnp.float32(0.0))
        s = J.jax.new_ref(J.jnp.float32(1.0))

        def cond(c):
            r[...] += c
            return c < 5.0

        def body(c):
            s[...] *= 2.0
            return c + 2.0
        return J.lax.while_loop(cond, body, x), r[...], s[...]
    return J.jax.jit(f)(0.0)


# ---- lax.linalg.schur: select_callable unused, sort_eig_vals refused when lowered

_A = [[1.0, 2.0, 0.0], [3.0, 1.0, 1.0], [0.0, 1.0, 4.0]]


def _schur(J, **kw):
    return J.lax.linalg.schur(J.jnp.array(_A), **kw)


def schur_select_no_sort(J):
    out = _schur(J, select_callable=lambda w: w.real > 0)
    return [type(out).__name__ == "list"] + list(out)


def schur_select_no_sort_jit(J):
    return J.jax.jit(lambda a: J.lax.linalg.schur(a, select_callable=lambda w: w > 0))(
        J.jnp.array(_A))


def schur_no_vectors(J):
    out = _schur(J, compute_schur_vectors=False)
    return [type(out).__name__ == "list", len(out)] + list(out)


def schur_sort(J):
    return _schur(J, sort_eig_vals=True, select_callable=lambda w: w.real > 0)


def schur_sort_jit(J):
    return J.jax.jit(lambda a: J.lax.linalg.schur(a, sort_eig_vals=True))(J.jnp.array(_A))


def schur_sort_jaxpr(J):
    """make_jaxpr keeps the equation: JAX refuses only when lowering."""
    text = str(J.jax.make_jaxpr(lambda a: J.lax.linalg.schur(a, sort_eig_vals=True))(
        J.jnp.array(_A)))
    return ["sort_eig_vals=True" in text, "select_callable=None" in text]


# ---- lax.composite whose decomposition returns None

def _none_composite(J):
    @functools.partial(J.lax.composite, name="my.nothing")
    def nothing(x, scale=None):
        x = x * 2.0
    return nothing


def composite_none_eager(J):
    return [_none_composite(J)(J.jnp.float32(1.0)) is None]


def composite_none_jit(J):
    return [J.jax.jit(_none_composite(J))(J.jnp.float32(1.0)) is None]


def composite_none_beside(J):
    g = _none_composite(J)
    return J.jax.jit(lambda x: (g(x, scale=3.0), x + 1.0))(J.jnp.float32(1.0))[1:]


def composite_empty_tuple_jit(J):
    @functools.partial(J.lax.composite, name="my.empty")
    def empty(x):
        return ()
    return [J.jax.jit(empty)(J.jnp.float32(1.0)) == ()]


CASES = {f.__name__: f for f in (
    while_cond_ref_eager, while_cond_ref_jit, while_cond_ref_inner_jit,
    while_cond_ref_inner_vmap, while_cond_ref_inner_jvp, while_cond_ref_zero_steps,
    while_cond_and_body_write, while_cond_writes_body_writes_other,
    schur_select_no_sort, schur_select_no_sort_jit, schur_no_vectors, schur_sort,
    schur_sort_jit, schur_sort_jaxpr,
    composite_none_eager, composite_none_jit, composite_none_beside,
    composite_empty_tuple_jit)}


def main():
    import types
    import jax
    import jax.numpy as jnp
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=jax.lax)
    out = {"jax": jax.__version__, "cases": {n: run(c, J) for n, c in CASES.items()}}
    (HERE / "refusals_remaining.json").write_text(json.dumps(out, indent=1, sort_keys=True)
                                                  + "\n")


if __name__ == "__main__":
    main()
