"""The derivatives of reductions, contractions, cumulative and sort-based functions,
swept in bits against JAX 0.10.2 (one process stores JAX's results, another astjax's):

    nice -n 5 .ecoenv/bin/python tests/fuzz/reduce_rule_sweep.py [-k SUBSTR] [--keep DIR]

For every case `f` (jnp.max/min with ties, amax, take_along_axis of argmax, sum, mean,
prod, var, std, the cumulative reductions, linalg.norm's orders and axes, nn.softmax /
log_softmax / logsumexp / standardize, dot / matmul / einsum / tensordot / vdot / inner,
sort / argsort / median / quantile, the factorizations: det, slogdet, inv, solve,
cholesky, eigh, qr, svd, pinv, lu, lstsq, matrix_power, scipy's cho_solve / lu_solve /
expm) on random float32 inputs: `jit(grad)` of the
weighted sum `L = sum(f(*args) * w)` per input, `jit(vmap(grad(L)))` over a batch,
`jit(vmap(jvp(f)))`, and the grad of a weighted sum of `grad(L)` (grad-of-grad).
Prints, per case and transform, the count of float32 results whose bits differ from
JAX's (NaNs compare equal whatever their payload) and the total."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")

jnp = nn = lax = sla = None  # the library under test's modules, bound by `_bind`

B, N = 16, 8  # batch size of the vmapped transforms; inputs of the per-input jit(grad)
S = (4, 5)
Q = (4, 4)

# name: (f, shapes of the differentiated arguments, input kind)
CASES = {
    "max": (lambda x: jnp.max(x), [S], "u"),
    "max_ties": (lambda x: jnp.max(x), [S], "ties"),
    "max_ax1_ties": (lambda x: jnp.max(x, axis=1), [S], "ties"),
    "min_ax0_ties": (lambda x: jnp.min(x, axis=0), [S], "ties"),
    "amax_keep": (lambda x: jnp.amax(x, axis=(0,), keepdims=True), [S], "u"),
    "amax_keep_ties": (lambda x: jnp.amax(x, axis=-1, keepdims=True), [S], "ties"),
    "take_argmax": (lambda x: jnp.take_along_axis(x, jnp.argmax(x, axis=1, keepdims=True),
                                                  axis=1), [S], "ties"),
    "sum": (lambda x: jnp.sum(x), [S], "u"),
    "sum_ax0": (lambda x: jnp.sum(x, axis=0), [S], "u"),
    "mean": (lambda x: jnp.mean(x), [S], "u"),
    "mean_ax1": (lambda x: jnp.mean(x, axis=1), [S], "u"),
    "prod": (lambda x: jnp.prod(x), [S], "u"),
    "prod_ax1": (lambda x: jnp.prod(x, axis=1), [S], "u"),
    "var": (lambda x: jnp.var(x), [S], "u"),
    "var_ax1_ddof": (lambda x: jnp.var(x, axis=1, ddof=1), [S], "u"),
    "std": (lambda x: jnp.std(x), [S], "u"),
    "std_ax0": (lambda x: jnp.std(x, axis=0), [S], "u"),
    "cumsum": (lambda x: jnp.cumsum(x, axis=1), [S], "u"),
    "cumsum_flat": (lambda x: jnp.cumsum(x), [S], "u"),
    "cumprod": (lambda x: jnp.cumprod(x, axis=1), [S], "u"),
    "cummax": (lambda x: lax.cummax(x, axis=1), [S], "ties"),
    "cummin_rev": (lambda x: lax.cummin(x, axis=0, reverse=True), [S], "u"),
    "logcumsumexp": (lambda x: lax.cumlogsumexp(x, axis=1), [S], "u"),
    "norm": (lambda x: jnp.linalg.norm(x), [S], "u"),
    "norm_vec": (lambda x: jnp.linalg.norm(x[0]), [S], "u"),
    "norm_vec1": (lambda x: jnp.linalg.norm(x[0], ord=1), [S], "u"),
    "norm_vec2": (lambda x: jnp.linalg.norm(x[0], ord=2), [S], "u"),
    "norm_vecinf": (lambda x: jnp.linalg.norm(x[0], ord=jnp.inf), [S], "u"),
    "norm_vecinf_ties": (lambda x: jnp.linalg.norm(x[0], ord=jnp.inf), [S], "ties"),
    "norm_vec3": (lambda x: jnp.linalg.norm(x[0], ord=3), [S], "u"),
    "norm_ax1": (lambda x: jnp.linalg.norm(x, axis=1), [S], "u"),
    "norm_ax0_keep": (lambda x: jnp.linalg.norm(x, axis=0, keepdims=True), [S], "u"),
    "norm_fro": (lambda x: jnp.linalg.norm(x, ord="fro"), [S], "u"),
    "norm_mat1": (lambda x: jnp.linalg.norm(x, ord=1), [S], "u"),
    "norm_matinf": (lambda x: jnp.linalg.norm(x, ord=jnp.inf), [S], "u"),
    "norm_mat2": (lambda x: jnp.linalg.norm(x, ord=2), [S], "u"),
    "norm_nuc": (lambda x: jnp.linalg.norm(x, ord="nuc"), [S], "u"),
    "softmax": (lambda x: nn.softmax(x, axis=-1), [S], "u"),
    "softmax_ax0": (lambda x: nn.softmax(x, axis=0), [S], "u"),
    "log_softmax": (lambda x: nn.log_softmax(x, axis=-1), [S], "u"),
    "logsumexp": (lambda x: nn.logsumexp(x, axis=1), [S], "u"),
    "logsumexp_all": (lambda x: nn.logsumexp(x), [S], "u"),
    "standardize": (lambda x: nn.standardize(x, axis=-1), [S], "u"),
    "dot": (lambda x, y: jnp.dot(x, y), [S, (5, 3)], "u"),
    "dot_vec": (lambda x, y: jnp.dot(x, y), [(5,), (5,)], "u"),
    "matmul": (lambda x, y: jnp.matmul(x, y), [S, (5, 3)], "u"),
    "matvec": (lambda x, y: x @ y, [S, (5,)], "u"),
    "einsum_mm": (lambda x, y: jnp.einsum("ij,jk->ik", x, y), [S, (5, 3)], "u"),
    "einsum_rows": (lambda x, y: jnp.einsum("ij,ij->i", x, y), [S, S], "u"),
    "einsum_outer": (lambda x, y: jnp.einsum("i,j->ij", x, y), [(4,), (5,)], "u"),
    "tensordot1": (lambda x, y: jnp.tensordot(x, y, axes=1), [S, (5, 3)], "u"),
    "tensordot2": (lambda x, y: jnp.tensordot(x, y, axes=2), [S, S], "u"),
    "vdot": (lambda x, y: jnp.vdot(x, y), [S, S], "u"),
    "inner": (lambda x, y: jnp.inner(x, y), [S, (3, 5)], "u"),
    "sort": (lambda x: jnp.sort(x, axis=1), [S], "u"),
    "sort_ties": (lambda x: jnp.sort(x, axis=0), [S], "ties"),
    "argsort_take": (lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1),
                     [S], "ties"),
    "median": (lambda x: jnp.median(x), [S], "u"),
    "median_ax1": (lambda x: jnp.median(x, axis=1), [S], "ties"),
    "quantile": (lambda x: jnp.quantile(x, 0.3, axis=1), [S], "u"),
    "quantile_nearest": (lambda x: jnp.quantile(x, 0.7, axis=0, method="nearest"), [S], "u"),
    "percentile": (lambda x: jnp.percentile(x, 40.0), [S], "u"),
    # the factorizations' JVP rules (square matrices)
    "det": (lambda x: jnp.linalg.det(x), [Q], "u"),
    "slogdet": (lambda x: jnp.linalg.slogdet(x)[1], [Q], "u"),
    "inv": (lambda x: jnp.linalg.inv(x), [Q], "u"),
    "solve": (lambda x, y: jnp.linalg.solve(x, y), [Q, (4,)], "u"),
    "cholesky": (lambda x: jnp.linalg.cholesky(x @ x.T + 4.0 * jnp.eye(4)), [Q], "u"),
    "eigvalsh": (lambda x: jnp.linalg.eigvalsh(x + x.T), [Q], "u"),
    "eigh_v": (lambda x: jnp.abs(jnp.linalg.eigh(x + x.T)[1]), [Q], "u"),
    "qr_r": (lambda x: jnp.abs(jnp.linalg.qr(x)[1]), [S], "u"),
    "svd_s": (lambda x: jnp.linalg.svd(x, compute_uv=False), [S], "u"),
    "svd_u": (lambda x: jnp.abs(jnp.linalg.svd(x, full_matrices=False)[0]), [S], "u"),
    "pinv": (lambda x: jnp.linalg.pinv(x), [S], "u"),
    "lu_u": (lambda x: jax_lu(x), [Q], "u"),
    "qr_complete": (lambda x: jnp.linalg.qr(x, mode="complete")[0], [(5, 4)], "u"),
    "lstsq": (lambda x, y: jnp.linalg.lstsq(x, y)[0], [(5, 3), (5,)], "u"),
    "matrix_power": (lambda x: jnp.linalg.matrix_power(x, 3), [Q], "u"),
    "cho_solve": (lambda x, y: sla.cho_solve((jnp.tril(x) + 4.0 * jnp.eye(4), True), y),
                  [Q, (4,)], "u"),
    "lu_solve": (lambda x, y: sla.lu_solve(sla.lu_factor(x), y), [Q, (4,)], "u"),
    "expm": (lambda x: sla.expm(0.3 * x), [Q], "u"),
}

TRANSFORMS = ("jit_grad", "vmap_grad", "jvp", "grad2")


def _bind(lib):
    global jnp, nn, lax, sla
    __import__(f"{lib.__name__}.scipy.linalg")
    jnp, nn, lax, sla = lib.numpy, lib.nn, lib.lax, lib.scipy.linalg


def jax_lu(x):
    """The packed LU factors of x (lax.linalg.lu), pivoting away from the weights."""
    return lax.linalg.lu(x)[0]


def _draw(rs, shape, kind):
    if kind == "ties":  # few distinct values: ties in every reduction
        return (rs.randint(-2, 3, shape) * 0.5).astype(np.float32)
    return rs.uniform(-2, 2, shape).astype(np.float32)


def _data(name, out_shape):
    """The inputs, tangents and weights of case `name` (the same in every process)."""
    f, shapes, kind = CASES[name]
    rs = np.random.RandomState(sum(map(ord, name)))
    xs = [_draw(rs, (B,) + s, kind) for s in shapes]
    ts = [rs.uniform(-1, 1, (B,) + s).astype(np.float32) for s in shapes]
    w = rs.uniform(0.5, 2, out_shape).astype(np.float32)
    vs = [rs.uniform(0.5, 2, s).astype(np.float32) for s in shapes]
    return xs, ts, w, vs


def run_case(lib, name, transforms=TRANSFORMS):
    """{transform: float32 result array or 'error:Class'} for case `name` under `lib`
    (the `transforms` named)."""
    f, shapes, _ = CASES[name]
    k = len(shapes)
    argnums = tuple(range(k))
    out_shape = lib.eval_shape(f, *[np.zeros(s, np.float32) for s in shapes]).shape
    xs, ts, w, vs = _data(name, out_shape)

    def loss(*a):
        return jnp.sum(f(*a[:k]) * a[k])

    def grad2_loss(*a):
        # the weights are arguments: JAX folds closed-over arrays into the program as
        # constants, and XLA's constant folding rounds otherwise than its kernels
        g = lib.grad(loss, argnums)(*a[:k + 1])
        return sum(jnp.sum(gi * vi) for gi, vi in zip(g, a[k + 1:]))

    def flat(r):
        leaves = lib.tree_util.tree_leaves(r)
        return np.concatenate([np.asarray(v, np.float32).ravel() for v in leaves])

    calls = {
        "jit_grad": lambda: np.concatenate(
            [flat(jg(*[x[i] for x in xs], w)) for i in range(N)]),
        "vmap_grad": lambda: flat(lib.jit(lib.vmap(lib.grad(loss, argnums),
                                                   in_axes=(0,) * k + (None,)))(*xs, w)),
        "jvp": lambda: flat(lib.jit(lib.vmap(
            lambda a, t: lib.jvp(f, tuple(a), tuple(t))))(xs, ts)),
        "grad2": lambda: flat(lib.jit(lib.vmap(lib.grad(grad2_loss, argnums),
                                               in_axes=(0,) * k + (None,) * (k + 1)))(
                                                   *xs, w, *vs)),
    }
    jg = lib.jit(lib.grad(loss, argnums))
    out = {}
    for t in transforms:
        call = calls[t]
        try:
            out[t] = call()
        except Exception as e:  # noqa: BLE001 - the class is the outcome
            out[t] = f"error:{type(e).__name__}: {str(e)[:200]}"
    return out


def store(libname, path, pattern):
    """Run every case matching `pattern` under `libname` and save the results to `path`."""
    lib = __import__(libname)
    _bind(lib)
    res = {}
    for name in CASES:
        if pattern and not any(k in name for k in pattern.split(",")):
            continue
        for t, r in run_case(lib, name).items():
            res[f"{name}/{t}"] = r if isinstance(r, np.ndarray) else np.array(r)
    np.savez(path, **res)


def _differing(a, b):
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        return None
    if a.shape != b.shape:
        return -1
    same = (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
    return int((~same).sum())


def compare(jax_path, ast_path):
    """Print the per-case and total counts of differing bits; returns the total."""
    want, got = np.load(jax_path), np.load(ast_path)
    total = n = 0
    per_case = {}
    for key in want.files:
        a, b = want[key], got[key] if key in got.files else np.array("missing")
        d = _differing(a, b)
        name, t = key.split("/")
        if d is None:
            if str(a) != str(b) and not (a.dtype.kind == "U" and b.dtype.kind == "U"):
                print(f"{key}: JAX {str(a)[:120]!s} | astjax {str(b)[:120]!s}")
                total += 1
            elif a.dtype.kind == "U" and b.dtype.kind != "U":
                print(f"{key}: JAX raised {str(a)[:120]}")
            continue
        if d == -1:
            print(f"{key}: shapes {a.shape} vs {b.shape}")
            total += 1
            continue
        n += a.size
        total += d
        per_case.setdefault(name, {})[t] = (d, a.size)
    for name, ts in per_case.items():
        bad = {t: d for t, (d, _) in ts.items() if d}
        if bad:
            print(f"{name:18s} " + "  ".join(f"{t}={d}/{ts[t][1]}" for t, d in bad.items()))
    print(f"{n} results, {total} differing")
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-k", default="", help="only the cases whose name contains this "
                   "(or one of these, comma-separated)")
    p.add_argument("--store", nargs=2, metavar=("LIB", "PATH"), help=argparse.SUPPRESS)
    p.add_argument("--keep", help="directory keeping JAX's results between runs")
    args = p.parse_args()
    if args.store:
        store(args.store[0], args.store[1], args.k)
        return 0
    d = args.keep or tempfile.mkdtemp()
    os.makedirs(d, exist_ok=True)
    jax_path = os.path.join(d, f"jax{args.k}.npz")
    ast_path = os.path.join(d, f"astjax{args.k}.npz")
    for lib, path in (("jax", jax_path), ("astjax", ast_path)):
        if lib == "jax" and args.keep and os.path.exists(path):
            continue
        subprocess.run([sys.executable, __file__, "-k", args.k, "--store", lib, path],
                       check=True)
    return 1 if compare(jax_path, ast_path) else 0


if __name__ == "__main__":
    sys.exit(main())
