"""Mutable references (`jax.new_ref`) from outside a `custom_jvp` / `custom_vjp`
function (closed over, read and written in it and in its rules) and a `pmap` body,
recorded from JAX 0.10.2 (see README.md): the results and the references' final
values, or the builtin class of JAX's error.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`); run with JAX
0.10.2: `/work/jaxref/bin/python tests/oracle/record_refs_custom.py` writes
refs_custom.json; `tests/test_refs_custom.py` runs the same cases on astjax.
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# most specific first: a RefEffectError is an Exception, as JAX's plain Exception
CLASSES = (NotImplementedError, TypeError, ValueError, IndexError, AttributeError, Exception)


def _v(x):
    return np.asarray(x, dtype=np.float64).tolist()


def _jvp_reading(J, r):
    @J.jax.custom_jvp
    def f(x):
        return x * r[...]

    @f.defjvp
    def f_jvp(p, t):
        return f(p[0]), t[0] * r[...]
    return f


def _jvp_writing(J, r):
    @J.jax.custom_jvp
    def f(x):
        r[...] = x
        return x * 2

    @f.defjvp
    def f_jvp(p, t):
        return f(p[0]), t[0] * 2
    return f


def _vjp_reading(J, r):
    @J.jax.custom_vjp
    def f(x):
        return x * r[...]

    f.defvjp(lambda x: (f(x), r[...]), lambda res, g: (g * res,))
    return f


def _vjp_writing(J, r):
    @J.jax.custom_vjp
    def f(x):
        r[...] = x
        return x * 2

    def fwd(x):
        r[...] = x + 100
        return x * 2, None

    f.defvjp(fwd, lambda res, g: (g * 2,))
    return f


RUNS = {
    "eager": lambda J, f: f(3.0),
    "jit": lambda J, f: J.jax.jit(f)(3.0),
    "grad": lambda J, f: J.jax.grad(f)(3.0),
    "jvp": lambda J, f: J.jax.jvp(f, (3.0,), (1.0,)),
    "jit_grad": lambda J, f: J.jax.jit(J.jax.grad(f))(3.0),
    "vmap": lambda J, f: J.jax.vmap(f)(J.jnp.array([1.0, 3.0])),
    "vmap_grad": lambda J, f: J.jax.vmap(J.jax.grad(f))(J.jnp.array([1.0, 3.0])),
}


def _case(make, run):
    def case(J):
        r = J.jax.new_ref(J.jnp.float32(2.0))
        out = RUNS[run](J, make(J, r))
        return [_v(o) for o in J.jax.tree_util.tree_leaves(out)] + [_v(r[...])]
    case.__name__ = f"{make.__name__.strip('_')}_{run}"
    return case


def jvp_rule_writes_grad(J):
    r = J.jax.new_ref(J.jnp.float32(0.0))

    @J.jax.custom_jvp
    def f(x):
        return J.jnp.sin(x)

    @f.defjvp
    def f_jvp(p, t):
        r[...] += 1.0
        return J.jnp.sin(p[0]), J.jnp.cos(p[0]) * t[0]
    return [_v(J.jax.grad(f)(1.0)), _v(r[...])]


def vjp_bwd_writes_grad(J):
    r = J.jax.new_ref(J.jnp.float32(0.0))

    @J.jax.custom_vjp
    def f(x):
        return x * 2

    def bwd(res, g):
        r[...] += g
        return (g * 2,)
    f.defvjp(lambda x: (f(x), None), bwd)
    return [_v(J.jax.grad(f)(5.0)), _v(r[...])]


def _ref_argument(J, run):
    r = J.jax.new_ref(J.jnp.float32(2.0))

    @J.jax.custom_jvp
    def f(x, r):
        return x * r[...]

    @f.defjvp
    def f_jvp(p, t):
        return f(*p), t[0] * p[1][...]
    return [_v(run(f)(3.0, r)), _v(r[...])]


def jvp_ref_argument_jit(J):
    return _ref_argument(J, J.jax.jit)


def jvp_ref_argument_eager(J):
    return _ref_argument(J, lambda f: f)


def pmap_closed_read(J):
    r = J.jax.new_ref(J.jnp.float32(2.0))
    return _v(J.jax.pmap(lambda x: x * r[...])(J.jnp.ones(1)))


def pmap_closed_write(J):
    r = J.jax.new_ref(J.jnp.float32(2.0))

    def f(x):
        r[...] = x[()] if x.ndim == 0 else x
        return x * 2
    return _v(J.jax.pmap(f)(J.jnp.ones(1) * 5))


def pmap_ref_argument(J):
    r = J.jax.new_ref(J.jnp.ones(1))
    return _v(J.jax.pmap(lambda r: r[...] * 2)(r))


def pmap_ref_created_inside(J):
    def f(x):
        r = J.jax.new_ref(x)
        r[...] += 1.0
        return r[...]
    return _v(J.jax.pmap(f)(J.jnp.ones(1)))


CASES = {c.__name__: c for c in [
    *[_case(_jvp_reading, k) for k in ("eager", "jit", "grad", "jvp", "jit_grad", "vmap",
                                       "vmap_grad")],
    *[_case(_jvp_writing, k) for k in ("eager", "jit", "grad", "jit_grad", "vmap")],
    *[_case(_vjp_reading, k) for k in ("eager", "jit", "grad", "jit_grad", "vmap",
                                       "vmap_grad")],
    *[_case(_vjp_writing, k) for k in ("eager", "jit", "grad", "jit_grad", "vmap")],
    jvp_rule_writes_grad, vjp_bwd_writes_grad, jvp_ref_argument_jit, jvp_ref_argument_eager,
    pmap_closed_read,
    pmap_closed_write, pmap_ref_argument, pmap_ref_created_inside]}


def run(case, J):
    """{"ok": result} or {"error": the builtin class of the error}."""
    try:
        return {"ok": case(J)}
    except Exception as e:   # noqa: BLE001 (the verdict is the class)
        return {"error": next(c.__name__ for c in CLASSES if isinstance(e, c))}


def main():
    import types
    import jax
    import jax.numpy as jnp
    J = types.SimpleNamespace(jax=jax, jnp=jnp)
    out = {"jax": jax.__version__, "cases": {n: run(c, J) for n, c in CASES.items()}}
    (HERE / "refs_custom.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
