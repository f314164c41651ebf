"""Cases for the derivatives of the linear-algebra factorizations in JAX's float32 bits
(first derivatives, JVPs and second derivatives of eigh / eigvalsh, solve, svd and
complete QR, and scipy's expm, values included: the cases `tests/fuzz/reduce_rule_sweep.py` found off by an ulp or more),
and a recorder of JAX's results (see README.md).

Each case is (function of the library's modules, argument shapes, transforms): the
inputs are the sweep's draws for the case's name, a transform is one of

- `value`: jit(vmap(f)) over the 16 inputs;
- `grad`: jit(grad) of L = sum(f(x) * w) at the first input;
- `jvp`: jit of the JVP's tangent at the first input;
- `vgrad2`: jit(vmap(grad(G))) over the 16 inputs, G = sum(grad(L)(x, w) * v).

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_factorization_derivs.py`
writes factorization_derivs.json (float32 results as their uint32 bits)."""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # tests/: jax_hosts
from jax_hosts import cpu_signature  # noqa: E402

B = 16

CASES = {
    "eigvalsh": (lambda J: lambda x: J.numpy.linalg.eigvalsh(x + x.T), [(4, 4)], ["vgrad2"]),
    "eigh_v": (lambda J: lambda x: J.numpy.abs(J.numpy.linalg.eigh(x + x.T)[1]), [(4, 4)],
               ["grad", "jvp", "vgrad2"]),
    "solve": (lambda J: J.numpy.linalg.solve, [(4, 4), (4,)], ["vgrad2"]),
    "svd_u": (lambda J: lambda x: J.numpy.abs(J.numpy.linalg.svd(x, full_matrices=False)[0]),
              [(4, 4)], ["vgrad2"]),
    "qr_complete": (lambda J: lambda x: J.numpy.linalg.qr(x, mode="complete")[0], [(5, 4)],
                    ["grad", "jvp", "vgrad2"]),
    "matrix_power": (lambda J: lambda x: J.numpy.linalg.matrix_power(x, 3), [(4, 4)],
                     ["vgrad2"]),
    "cho_solve": (lambda J: lambda x, y: _sla(J).cho_solve(
        (J.numpy.tril(x) + 4.0 * J.numpy.eye(4), True), y), [(4, 4), (4,)], ["vgrad2"]),
    "lu_solve": (lambda J: lambda x, y: _sla(J).lu_solve(_sla(J).lu_factor(x), y),
                 [(4, 4), (4,)], ["vgrad2"]),
    "expm": (lambda J: lambda x: _sla(J).expm(0.3 * x), [(4, 4)], ["value", "grad", "jvp"]),
}


def _sla(J):
    __import__(f"{J.__name__}.scipy.linalg")
    return J.scipy.linalg


def data(J, name):
    """The inputs (B of each argument), tangents, weights of `name` (the sweep's draws)."""
    make, shapes, _ = CASES[name]
    f = make(J)
    rs = np.random.RandomState(sum(map(ord, name)))
    xs = [rs.uniform(-2, 2, (B,) + s).astype(np.float32) for s in shapes]
    ts = [rs.uniform(-1, 1, (B,) + s).astype(np.float32) for s in shapes]
    out = J.eval_shape(f, *[x[0] for x in xs]).shape
    w = rs.uniform(0.5, 2, out).astype(np.float32)
    vs = [rs.uniform(0.5, 2, s).astype(np.float32) for s in shapes]
    return f, xs, ts, w, vs


def run(J, name, transform):
    """The uint32 bits of `transform` of case `name` under the library `J`."""
    f, xs, ts, w, vs = data(J, name)
    jnp = J.numpy
    k = len(xs)
    argnums = tuple(range(k))

    def loss(*a):
        return jnp.sum(f(*a[:k]) * a[k])

    def g2(*a):
        g = J.grad(loss, argnums)(*a[:k + 1])
        return sum(jnp.sum(gi * vi) for gi, vi in zip(g, a[k + 1:]))
    if transform == "value":
        r = J.jit(J.vmap(f))(*xs)
    elif transform == "grad":
        r = J.jit(J.grad(loss, argnums))(*[x[0] for x in xs], w)
    elif transform == "jvp":
        r = J.jit(lambda a, t: J.jvp(f, tuple(a), tuple(t))[1])(
            [x[0] for x in xs], [t[0] for t in ts])
    else:
        r = J.jit(J.vmap(J.grad(g2, argnums), in_axes=(0,) * k + (None,) * (k + 1)))(
            *xs, w, *vs)
    leaves = J.tree_util.tree_leaves(r)
    return np.concatenate([np.asarray(v, np.float32).ravel() for v in leaves]).view(
        np.uint32).tolist()


if __name__ == "__main__":
    import jax
    jax.config.update("jax_platforms", "cpu")
    rec = {f"{name}/{t}": run(jax, name, t) for name, (_, _, ts) in CASES.items() for t in ts}
    rec["cpu"] = cpu_signature()
    Path(__file__).with_name("factorization_derivs.json").write_text(json.dumps(rec) + "\n")
