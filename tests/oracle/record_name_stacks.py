"""Each equation's `source_info.name_stack`, recorded from JAX 0.10.2 (issue 13: dm-haiku's
`jaxpr_info` attributes equations to modules by it): `named_scope`, `named_call`, and
the names the transforms add (`jvp(...)`, `transpose(jvp(...))`, `vmap(...)`), at the
top level and inside `cond` / `scan` / `while` bodies and inner `jit`s.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`)
returning `(function, args)`; `name_stacks(J, closed_jaxpr)` is the recorded shape:
per equation `[primitive, str(name_stack), [sub-jaxprs...]]`. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_name_stacks.py` writes name_stacks.json;
`tests/test_name_stack.py` runs the same cases on astjax.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUBJAXPR_PARAMS = ("branches", "jaxpr", "cond_jaxpr", "body_jaxpr", "call_jaxpr",
                   "fun_jaxpr")


def name_stacks(J, jaxpr):
    """`[[primitive, name_stack, [sub-jaxprs]], ...]` of a (closed) jaxpr."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    out = []
    for eqn in jaxpr.eqns:
        subs = []
        for key in SUBJAXPR_PARAMS:
            val = eqn.params.get(key)
            for sub in (val if isinstance(val, (tuple, list)) else [val]):
                if sub is not None and hasattr(getattr(sub, "jaxpr", sub), "eqns"):
                    subs.append(name_stacks(J, sub))
        out.append([eqn.primitive.name, str(eqn.source_info.name_stack), subs])
    return out


def _scoped(J):
    """`f(x)`: sin in scope `a`, cos in `a/b`, a multiply outside any scope."""
    jnp = J.jnp

    def f(x):
        with J.jax.named_scope("a"):
            y = jnp.sin(x)
            with J.jax.named_scope("b"):
                y = jnp.cos(y)
        return y * x
    return f


def plain(J):
    return _scoped(J), (1.0,)


def named_call(J):
    jnp = J.jnp

    def g(x):
        return jnp.sin(x) * 2.0

    def f(x):
        return J.jax.named_call(g, name="foo")(x) + 1.0
    return f, (1.0,)


def jvp(J):
    f = _scoped(J)
    return (lambda x, t: J.jax.jvp(f, (x,), (t,))), (1.0, 1.0)


def grad(J):
    return J.jax.grad(_scoped(J)), (1.0,)


def grad_in_scope(J):
    f = _scoped(J)

    def outer(x):
        with J.jax.named_scope("outer"):
            return J.jax.grad(f)(x)
    return outer, (1.0,)


def vmap(J):
    return J.jax.vmap(_scoped(J)), (J.jnp.ones(3),)


def vmap_of_grad(J):
    return J.jax.vmap(J.jax.grad(_scoped(J))), (J.jnp.ones(3),)


def cond(J):
    jnp, lax = J.jnp, J.lax

    def f(x):
        with J.jax.named_scope("c"):
            def yes(x):
                with J.jax.named_scope("yes"):
                    return jnp.sin(x)
            return lax.cond(x > 0, yes, jnp.cos, x)
    return f, (1.0,)


def grad_of_cond(J):
    f, args = cond(J)
    return J.jax.grad(f), args


def scan(J):
    jnp, lax = J.jnp, J.lax

    def f(x):
        def body(c, t):
            with J.jax.named_scope("step"):
                return c * t + jnp.sin(c), c
        with J.jax.named_scope("loop"):
            return lax.scan(body, x, jnp.arange(3.0))[0]
    return f, (1.0,)


def grad_of_scan(J):
    f, args = scan(J)
    return J.jax.grad(f), args


def while_loop(J):
    lax = J.lax

    def f(x):
        with J.jax.named_scope("w"):
            return lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
    return f, (1.0,)


def inner_jit(J):
    jax, jnp = J.jax, J.jnp

    @jax.jit
    def g(x):
        with jax.named_scope("inside"):
            return jnp.sin(x)

    def f(x):
        with jax.named_scope("caller"):
            return g(x) + 1.0
    return f, (1.0,)


CASES = {f.__name__: f for f in [plain, named_call, jvp, grad, grad_in_scope, vmap,
                                 vmap_of_grad, cond, grad_of_cond, scan, grad_of_scan,
                                 while_loop, inner_jit]}


def record(J):
    """Every case's name stacks, under namespace `J`."""
    out = {}
    for name, case in CASES.items():
        fun, args = case(J)
        out[name] = name_stacks(J, J.jax.make_jaxpr(fun)(*args))
    return out


if __name__ == "__main__":
    import types

    import jax
    import jax.numpy as jnp
    from jax import lax
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax)
    (HERE / "name_stacks.json").write_text(json.dumps(record(J), indent=1) + "\n")
