"""`custom_vjp.defvjp(fwd, bwd, optimize_remat=True)` recorded from JAX 0.10.2 (see
README.md): values, derivatives, how often the user's functions run, which call
equations the staged programs hold, and JAX's error classes.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`)
returning a JSON-able result; a case that raises records the builtin class of the
error. Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_optimize_remat.py`
writes optimize_remat.json; `tests/test_optimize_remat.py` runs the same cases on astjax.
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BUILTIN = (NotImplementedError, TypeError, ValueError, IndexError, AttributeError)


def _sin_vjp(J, opt=True, counts=None, fwd_body=None):
    """f(x) = sin(x), residual cos(x), as the tests of JAX's own option write it."""
    jnp = J.jnp
    counts = {} if counts is None else counts

    def bump(k):
        counts[k] = counts.get(k, 0) + 1

    @J.jax.custom_vjp
    def f(x):
        bump("f")
        return jnp.sin(x)

    def f_fwd(x):
        bump("fwd")
        return (fwd_body(x) if fwd_body else (jnp.sin(x), jnp.cos(x)))

    def f_bwd(c, g):
        bump("bwd")
        return (c * g,)

    f.defvjp(f_fwd, f_bwd, optimize_remat=opt)
    return f


def _tolist(x):
    return np.asarray(x, dtype=np.float64).tolist()


def _prims(jaxpr, acc=None):
    """Primitive name -> count over `jaxpr` and every nested jaxpr."""
    acc = {} if acc is None else acc
    for eqn in jaxpr.eqns:
        acc[eqn.primitive.name] = acc.get(eqn.primitive.name, 0) + 1
        for v in eqn.params.values():
            for sub in (v if isinstance(v, (tuple, list)) else [v]):
                sub = getattr(sub, "jaxpr", sub)
                if hasattr(sub, "eqns"):
                    _prims(sub, acc)
    return acc


def _remat_opts(jaxpr, acc=None):
    """(num_consts, num_res, primitives of fwd_jaxpr) of every remat_opt equation."""
    acc = [] if acc is None else acc
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "remat_opt":
            acc.append([eqn.params["num_consts"], eqn.params["num_res"],
                        [e.primitive.name for e in eqn.params["fwd_jaxpr"].jaxpr.eqns]])
        for v in eqn.params.values():
            sub = getattr(v, "jaxpr", v)
            if hasattr(sub, "eqns"):
                _remat_opts(sub, acc)
    return acc


def eager_value(J):
    counts = {}
    f = _sin_vjp(J, counts=counts)
    return {"y": _tolist(f(J.jnp.float32(0.5))), "counts": counts}


def jit_value(J):
    counts = {}
    f = _sin_vjp(J, counts=counts)
    return {"y": _tolist(J.jax.jit(f)(J.jnp.float32(0.5))), "counts": counts}


def grad_counts(J):
    counts = {}
    f = _sin_vjp(J, counts=counts)
    return {"g": _tolist(J.jax.grad(f)(J.jnp.float32(0.5))), "counts": counts}


def jit_grad(J):
    counts = {}
    f = _sin_vjp(J, counts=counts)
    return {"g": _tolist(J.jax.jit(J.jax.grad(f))(J.jnp.float32(0.5))), "counts": counts}


def value_and_grad_vector(J):
    f = _sin_vjp(J)
    v, g = J.jax.value_and_grad(lambda x: J.jnp.sum(f(x) ** 2))(J.jnp.arange(4.0))
    return [_tolist(v), _tolist(g)]


def vmap_grad(J):
    counts = {}
    f = _sin_vjp(J, counts=counts)
    return {"g": _tolist(J.jax.vmap(J.jax.grad(f))(J.jnp.arange(3.0))), "counts": counts}


def grad_vmap(J):
    f = _sin_vjp(J)
    return _tolist(J.jax.grad(lambda x: J.jnp.sum(J.jax.vmap(f)(x) * x))(J.jnp.arange(3.0)))


def _callback_fwd(J, calls):
    jnp = J.jnp

    def host(x):
        calls[0] += 1
        return np.sin(x), np.cos(x)

    def body(x):   # an opaque forward kernel: one call computes both results
        return tuple(J.jax.pure_callback(
            host, (J.jax.ShapeDtypeStruct(x.shape, x.dtype),) * 2, x,
            vmap_method="sequential"))
    return body, jnp


def _kernel_calls(J, opt, run):
    calls = [0]
    body, _ = _callback_fwd(J, calls)
    f = _sin_vjp(J, opt=opt, fwd_body=body)
    out = run(f)
    return {"out": [_tolist(o) for o in J.jax.tree_util.tree_leaves(out)], "calls": calls[0]}


def _ckpt_vg(J, f):
    g = J.jax.checkpoint(lambda x: f(x) * 2.0)
    return J.jax.value_and_grad(g)(J.jnp.float32(0.5))


def kernel_calls_ckpt_vg(J):
    return [_kernel_calls(J, opt, lambda f: _ckpt_vg(J, f)) for opt in (False, True)]


def kernel_calls_jit_ckpt_vg(J):
    return [_kernel_calls(J, opt, lambda f: J.jax.jit(
        lambda x: _ckpt_vg(J, f))(J.jnp.float32(0.5))) for opt in (False, True)]


def kernel_calls_scan_ckpt(J):
    def run(f):
        g = J.jax.checkpoint(lambda x: f(x) * 2.0)

        def loss(x):
            return J.lax.scan(lambda c, _: (g(c), None), x, None, length=3)[0]
        return J.jax.jit(J.jax.value_and_grad(loss))(J.jnp.float32(0.5))
    return [_kernel_calls(J, opt, run) for opt in (False, True)]


def kernel_calls_vmap_ckpt(J):
    def run(f):
        g = J.jax.checkpoint(lambda x: f(x) * 2.0)
        return J.jax.jit(J.jax.value_and_grad(
            lambda x: J.jnp.sum(J.jax.vmap(g)(x))))(J.jnp.arange(3.0))
    return [_kernel_calls(J, opt, run) for opt in (False, True)]


def kernel_calls_no_ckpt(J):
    return [_kernel_calls(J, opt, lambda f: J.jax.jit(J.jax.value_and_grad(
        lambda x: f(x) * 2.0))(J.jnp.float32(0.5))) for opt in (False, True)]


def jaxpr_ckpt_vg(J):
    f = _sin_vjp(J)
    closed = J.jax.make_jaxpr(lambda x: _ckpt_vg(J, f))(J.jnp.float32(0.5))
    prims = _prims(closed.jaxpr)
    return {"closed_call": prims.get("closed_call", 0), "remat_opt": _remat_opts(closed.jaxpr)}


def pytrees_and_forwarded_residual(J):
    jnp = J.jnp

    @J.jax.custom_vjp
    def g(p):
        return {"u": p["a"] * 3.0 + jnp.sin(p["b"]), "v": p["a"] * p["b"]}

    def g_fwd(p):
        # residuals: inputs as they are (forwarded, not results) and a computed one
        return g(p), (p["a"], jnp.cos(p["b"]), p["b"])

    def g_bwd(res, ct):
        a, cb, b = res
        return ({"a": ct["u"] * 3.0 + ct["v"] * b, "b": ct["u"] * cb + ct["v"] * a},)

    g.defvjp(g_fwd, g_bwd, optimize_remat=True)

    def loss(p):
        out = g(p)
        return jnp.sum(out["u"] ** 2 + out["v"])

    p = {"a": jnp.arange(3.0), "b": jnp.linspace(0.1, 0.9, 3)}
    grads = J.jax.grad(loss)(p)
    ck = J.jax.value_and_grad(J.jax.checkpoint(loss))(p)
    jx = J.jax.make_jaxpr(J.jax.value_and_grad(J.jax.checkpoint(loss)))(p)
    return {"grad": {k: _tolist(v) for k, v in grads.items()},
            "ckpt": [_tolist(ck[0]), {k: _tolist(v) for k, v in ck[1].items()}],
            "remat_opt": _remat_opts(jx.jaxpr),
            "closed_call": _prims(jx.jaxpr).get("closed_call", 0)}


def nondiff_argnums(J):
    jnp = J.jnp
    from functools import partial

    @partial(J.jax.custom_vjp, nondiff_argnums=(0,))
    def f(k, x):
        return jnp.sin(x) * k

    def f_fwd(k, x):
        return f(k, x), jnp.cos(x)

    def f_bwd(k, c, g):
        return (c * g * k,)

    f.defvjp(f_fwd, f_bwd, optimize_remat=True)
    x = jnp.linspace(0.0, 1.0, 4)
    g1 = J.jax.grad(lambda x: jnp.sum(f(3, x)))(x)
    g2 = J.jax.jit(J.jax.value_and_grad(J.jax.checkpoint(lambda x: jnp.sum(f(2, x)))))(x)
    return [_tolist(g1), _tolist(g2[0]), _tolist(g2[1])]


def closure_consts(J):
    jnp = J.jnp
    W = jnp.array([[1.0, 2.0], [3.0, -1.0]])

    @J.jax.custom_vjp
    def f(x):
        return jnp.tanh(W @ x)

    def f_fwd(x):
        y = jnp.tanh(W @ x)
        return y, (y,)

    def f_bwd(res, g):
        y, = res
        return (W.T @ ((1 - y ** 2) * g),)

    f.defvjp(f_fwd, f_bwd, optimize_remat=True)
    x = jnp.array([0.3, -0.2])
    loss = J.jax.checkpoint(lambda x: jnp.sum(f(x) ** 2))
    v, g = J.jax.jit(J.jax.value_and_grad(loss))(x)
    return [_tolist(v), _tolist(g), _tolist(J.jax.grad(lambda x: jnp.sum(f(x)))(x))]


def forward_over_reverse(J):
    f = _sin_vjp(J)
    return [_tolist(J.jax.jacfwd(J.jax.grad(f))(J.jnp.float32(0.5))),
            _tolist(J.jax.hessian(lambda x: J.jnp.sum(f(x) * x))(J.jnp.arange(3.0)))]


def vmap_of_ckpt_grad(J):
    f = _sin_vjp(J)
    g = J.jax.checkpoint(lambda x: f(x) * x)
    return _tolist(J.jax.vmap(J.jax.grad(g))(J.jnp.arange(3.0)))


def error_symbolic_zeros(J):
    f = J.jax.custom_vjp(lambda x: x)
    f.defvjp(lambda x: (x, None), lambda r, g: (g,), symbolic_zeros=True,
             optimize_remat=True)
    return "no error"


def error_grad_grad(J):
    f = _sin_vjp(J)
    return _tolist(J.jax.grad(J.jax.grad(f))(J.jnp.float32(0.5)))


def error_jvp(J):
    f = _sin_vjp(J)
    return _tolist(J.jax.jvp(f, (J.jnp.float32(0.5),), (J.jnp.float32(1.0),))[1])


CASES = {f.__name__: f for f in [
    eager_value, jit_value, grad_counts, jit_grad, value_and_grad_vector, vmap_grad,
    grad_vmap, kernel_calls_ckpt_vg, kernel_calls_jit_ckpt_vg, kernel_calls_scan_ckpt,
    kernel_calls_vmap_ckpt, kernel_calls_no_ckpt, jaxpr_ckpt_vg, pytrees_and_forwarded_residual,
    nondiff_argnums, closure_consts, forward_over_reverse, vmap_of_ckpt_grad,
    error_symbolic_zeros, error_grad_grad, error_jvp]}


def run(case, J):
    """{"ok": result} or {"error": the builtin class JAX's error is an instance of}."""
    try:
        return {"ok": case(J)}
    except BUILTIN as e:
        return {"error": next(c.__name__ for c in BUILTIN if isinstance(e, c))}


def main():
    import types
    import jax
    import jax.numpy as jnp
    from jax import lax
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax)
    out = {"jax": jax.__version__, "cases": {n: run(c, J) for n, c in CASES.items()}}
    (HERE / "optimize_remat.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
