"""Cases for `lax.custom_linear_solve` and `lax.custom_root`, and a recorder of JAX's
values and derivatives (see README.md).

`CASES` is a list of (name, function of (module namespace m, *arrays), input names);
each function returns one array or a tuple of them. The solvers are written with
`m.jnp` / `m.lax`, so the same code runs on JAX and on astjax. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_custom_solves.py` writes
custom_solves.json."""
import json
import sys
from pathlib import Path

import numpy as np


def inputs():
    r = np.random.RandomState(11)
    a = (r.randn(4, 4) + 4 * np.eye(4)).astype(np.float32)
    s = r.randn(4, 4)
    return {
        "a": a,
        "spd": (s @ s.T + 4 * np.eye(4)).astype(np.float32),
        "b": r.randn(4).astype(np.float32),
        "bs": r.randn(3, 4).astype(np.float32),
        "as": (r.randn(3, 4, 4) + 4 * np.eye(4)).astype(np.float32),
        "w": (0.3 * r.randn(3, 3)).astype(np.float32),
        "u": r.randn(3).astype(np.float32),
        "c": np.array(2.5, np.float32),
        "cs": np.array([2.0, 3.0, 5.0], np.float32),
    }

# ---------------------------------------------------------------- the solvers


def dense_solve(m, a, b):
    """A general matrix: solve and transpose solve through jnp.linalg.solve."""
    return m.lax.custom_linear_solve(
        lambda x: a @ x, b,
        solve=lambda _, y: m.jnp.linalg.solve(a, y),
        transpose_solve=lambda _, y: m.jnp.linalg.solve(a.T, y))


def cg(m, matvec, b, iters=6):
    """Conjugate gradients, a fixed number of steps (exact for 4 x 4 in exact arithmetic)."""
    x = m.jnp.zeros_like(b)
    r = b - matvec(x)
    p = r
    rs = m.jnp.vdot(r, r)
    for _ in range(iters):
        ap = matvec(p)
        alpha = rs / m.jnp.vdot(p, ap)
        x = x + alpha * p
        r = r - alpha * ap
        rs_new = m.jnp.vdot(r, r)
        p = r + m.jnp.where(rs > 0, rs_new / m.jnp.where(rs > 0, rs, 1.0), 0.0) * p
        rs = rs_new
    return x


def cg_solve(m, a, b):
    """A symmetric matrix solved by CG (matrix-free): symmetric=True reuses it."""
    return m.lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, y: cg(m, mv, y),
                                     symmetric=True)


def aux_solve(m, a, b):
    """has_aux: the solvers also return the residual's norm."""
    def solve(mv, y):
        x = m.jnp.linalg.solve(a, y)
        return x, m.jnp.linalg.norm(mv(x) - y)

    def tsolve(vm, y):
        x = m.jnp.linalg.solve(a.T, y)
        return x, m.jnp.linalg.norm(vm(x) - y)
    return m.lax.custom_linear_solve(lambda x: a @ x, b, solve, tsolve, has_aux=True)


def tree_solve(m, a, b):
    """b a dict of two blocks; matvec acts blockwise."""
    def join(t):
        return m.jnp.concatenate([t["u"], t["v"]])

    def split(x):
        return {"u": x[:1], "v": x[1:]}

    def matvec(t):
        return split(a @ join(t))
    out = m.lax.custom_linear_solve(
        matvec, split(b),
        solve=lambda _, t: split(m.jnp.linalg.solve(a, join(t))),
        transpose_solve=lambda _, t: split(m.jnp.linalg.solve(a.T, join(t))))
    return join(out)


def newton(m, f, x0):
    x = x0
    for _ in range(12):
        x = x - f(x) / m.jax.grad(f)(x)
    return x


def sqrt_newton(m, c):
    """The scalar root of x^2 - c by Newton's method."""
    return m.lax.custom_root(lambda x: x ** 2 - c, 1.0, lambda f, x0: newton(m, f, x0),
                             lambda g, y: y / g(1.0))


def bisect(m, f, x0):
    lo, hi = m.jnp.zeros_like(x0), m.jnp.full_like(x0, 10.0)
    for _ in range(40):
        mid = (lo + hi) / 2
        pos = f(mid) > 0
        lo, hi = m.jnp.where(pos, lo, mid), m.jnp.where(pos, mid, hi)
    return (lo + hi) / 2


def cbrt_bisect(m, c):
    """The root of x^3 - c by bisection on [0, 10]."""
    return m.lax.custom_root(lambda x: x ** 3 - c, m.jnp.float32(1.0),
                             lambda f, x0: bisect(m, f, x0), lambda g, y: y / g(1.0))


def fixed_point(m, w, u):
    """The vector fixed point x = tanh(w x + u), found by iteration; the tangent system
    solved with the Jacobian of the linearized map."""
    def f(x):
        return x - m.jnp.tanh(w @ x + u)

    def solve(f, x0):
        x = x0
        for _ in range(60):
            x = x - f(x)
        return x

    def tangent_solve(g, y):
        return m.jnp.linalg.solve(m.jax.jacobian(g)(y), y)
    return m.lax.custom_root(f, m.jnp.zeros_like(u), solve, tangent_solve)


def root_aux(m, c):
    """has_aux: solve also returns its last residual."""
    def solve(f, x0):
        x = newton(m, f, x0)
        return x, f(x)
    x, res = m.lax.custom_root(lambda x: x ** 2 - c, 1.0, solve, lambda g, y: y / g(1.0),
                               has_aux=True)
    return x, res


def _sin_sum(m, fn):
    return lambda *args: m.jnp.sum(m.jnp.sin(fn(m, *args)))


CASES = [
    ("dense", lambda m, a, b: dense_solve(m, a, b), ["a", "b"]),
    ("dense_grad", lambda m, a, b: m.jax.grad(_sin_sum(m, dense_solve), (0, 1))(a, b),
     ["a", "b"]),
    ("dense_jvp", lambda m, a, b: m.jax.jvp(lambda a, b: dense_solve(m, a, b), (a, b),
                                            (a.T, 2 * b))[1], ["a", "b"]),
    ("cg", lambda m, a, b: cg_solve(m, a, b), ["spd", "b"]),
    ("cg_grad", lambda m, a, b: m.jax.grad(_sin_sum(m, cg_solve), (0, 1))(a, b),
     ["spd", "b"]),
    ("aux", lambda m, a, b: aux_solve(m, a, b), ["a", "b"]),
    ("aux_grad", lambda m, a, b: m.jax.grad(lambda a: m.jnp.sum(aux_solve(m, a, b)[0] ** 2))(
        a), ["a", "b"]),
    ("tree", lambda m, a, b: tree_solve(m, a, b), ["a", "b"]),
    ("tree_grad", lambda m, a, b: m.jax.grad(_sin_sum(m, tree_solve), (0, 1))(a, b),
     ["a", "b"]),
    ("vmap_b", lambda m, a, bs: m.jax.vmap(lambda b: dense_solve(m, a, b))(bs), ["a", "bs"]),
    ("vmap_ab_grad", lambda m, a, bs: m.jax.vmap(m.jax.grad(_sin_sum(m, dense_solve)))(a, bs),
     ["as", "bs"]),
    ("vmap_cg", lambda m, a, bs: m.jax.vmap(lambda b: cg_solve(m, a, b), 0, 0)(bs),
     ["spd", "bs"]),
    ("sqrt", lambda m, c: sqrt_newton(m, c), ["c"]),
    ("sqrt_grad", lambda m, c: m.jax.grad(lambda c: sqrt_newton(m, c))(c), ["c"]),
    ("sqrt_hess", lambda m, c: m.jax.grad(m.jax.grad(lambda c: sqrt_newton(m, c)))(c), ["c"]),
    ("sqrt_vmap_grad", lambda m, cs: m.jax.vmap(m.jax.grad(lambda c: sqrt_newton(m, c)))(cs),
     ["cs"]),
    ("cbrt", lambda m, c: cbrt_bisect(m, c), ["c"]),
    ("cbrt_grad", lambda m, c: m.jax.grad(lambda c: cbrt_bisect(m, c))(c), ["c"]),
    ("fixed_point", lambda m, w, u: fixed_point(m, w, u), ["w", "u"]),
    ("fixed_point_grad", lambda m, w, u: m.jax.grad(
        lambda w, u: m.jnp.sum(fixed_point(m, w, u) ** 2), (0, 1))(w, u), ["w", "u"]),
    ("fixed_point_jvp", lambda m, w, u: m.jax.jvp(lambda w, u: fixed_point(m, w, u), (w, u),
                                                  (w.T, u))[1], ["w", "u"]),
    ("root_aux", lambda m, c: root_aux(m, c), ["c"]),
    ("root_aux_grad", lambda m, c: m.jax.grad(lambda c: root_aux(m, c)[0])(c), ["c"]),
]


def encode(y):
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape),
            "values": y.astype(np.float64).ravel().tolist()}


def decode(d):
    return np.asarray(d["values"]).reshape(d["shape"])


def record(path):
    import types
    import jax
    import jax.numpy as jnp
    from jax import lax
    m = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax)
    ins = inputs()
    out = {}
    for name, fn, args in CASES:
        res = fn(m, *[ins[a] for a in args])
        res = res if isinstance(res, tuple) else (res,)
        out[name] = [encode(r) for r in res]
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("custom_solves.json"))
