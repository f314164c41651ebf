"""The IR-level fuzzer (issue 12, item 1): random well-typed jaxprs through every
transform, each result checked by `check_jaxpr` and by the reference interpreter
(`core.eval_reference`, the primitives' NumPy rules), in float64.

A program is a list of lax operations over a pool of values (the inputs first), with
shapes drawn so that every operation is well typed; its outputs are one or two values
of the pool. Values stay bounded (tanh/sin squash, `x / (1 + x*x)`), so derivatives can
be compared with central differences. Checks, per program:

- `stage`: the staged jaxpr passes `check_jaxpr`; the reference interpreter agrees with
  the compiled program (`jit` of the jaxpr);
- `jvp`: `jvp_jaxpr` is well formed, its primal outputs are the reference's, its
  tangents match central differences of the reference;
- `linearize`: both halves well formed; the linear half gives the jvp's tangents;
- `vjp`: both halves well formed; <ct, J t> == <J^T ct, t> (the transpose identity);
- `vmap`: `batch_jaxpr` (random in_dims, some unmapped) staged and well formed, equal
  to a loop of reference evaluations;
- `dce`: with a random subset of outputs used, well formed and equal on those;
- `partial_eval`: with random unknown inputs, both halves well formed, and the known
  half's residuals fed to the unknown half give the reference outputs;
- `cleanup`: simplify + CSE + DCE keep the program well formed and its values.

Operations: elementwise (unary and binary), reductions, reshape / transpose /
broadcast / slice / pad / rev / concatenate, cumsum, dot_general, select, and the
control-flow primitives `cond`, `fori_loop` (0 to 2 trips) and `scan` with a carry.

`python tests/fuzz/ir_gen.py A:B` runs seeds A..B and prints the failures and a count.
"""
from __future__ import annotations

import random
import sys
import traceback

import numpy as np

import astjax
from astjax import config, core, lax
from astjax.ir import check_jaxpr
from astjax.transforms import ad, batching, dce

SHAPES = [(), (3,), (2, 3), (3, 2)]
CHECKS = ("stage", "jvp", "linearize", "vjp", "vmap", "dce", "partial_eval", "cleanup")


def _aval(x):
    return core.get_aval(x)


# ------------------------------------------------------------------ the generator
# each op: (name, arity, applies(shapes) -> bool, build(rng, *values) -> value)

def _squash(rng, x):
    return [lax.tanh, lax.sin, lambda v: lax.div(v, lax.add(lax.mul(v, v), 1.0))][
        rng.randrange(3)](x)


def _reduce(rng, x):
    nd = _aval(x).ndim
    axes = tuple(sorted(rng.sample(range(nd), rng.randint(1, nd))))
    return (lax.reduce_sum if rng.random() < 0.7 else lax.reduce_max)(x, axes)


def _reshape(rng, x):
    a = _aval(x)
    options = {(6,): [(2, 3), (3, 2), (6,)], (): [(1,), ()], (3,): [(3, 1), (1, 3)]}
    size = (a.size,) if a.ndim else ()
    shape = rng.choice(options.get(size, [(a.size,)]))
    return lax.reshape(x, shape)


def _transpose(rng, x):
    nd = _aval(x).ndim
    perm = list(range(nd))
    rng.shuffle(perm)
    return lax.transpose(x, tuple(perm))


def _broadcast(rng, x):
    a = _aval(x)
    shape = (2,) + a.shape
    return lax.broadcast_in_dim(x, shape, tuple(range(1, len(shape))))


def _slice(rng, x):
    a = _aval(x)
    starts = [rng.randrange(d) for d in a.shape]
    limits = [rng.randint(s + 1, d) for s, d in zip(starts, a.shape)]
    return lax.slice(x, starts, limits)


def _pad(rng, x):
    nd = _aval(x).ndim
    return lax.pad(x, 0.0, [(rng.randint(0, 1), rng.randint(0, 1), 0) for _ in range(nd)])


def _cumsum(rng, x):
    return lax.cumsum(x, rng.randrange(_aval(x).ndim), reverse=rng.random() < 0.5)


def _dot(rng, x, y):
    ax, ay = _aval(x), _aval(y)
    return lax.dot_general(x, y, (((ax.ndim - 1,), (0,)), ((), ())))


def _concat(rng, x, y):
    return lax.concatenate([x, y], rng.randrange(_aval(x).ndim))


def _select(rng, x, y):
    return lax.select(lax.gt(x, y), lax.mul(x, y), lax.sub(x, y))


def _all_sum(x):
    return lax.reduce_sum(x, tuple(range(_aval(x).ndim))) if _aval(x).ndim else x


def _cond(rng, x):
    k = rng.random() + 0.5
    return lax.cond(lax.gt(_all_sum(x), 0.0), lambda v: lax.sin(lax.mul(v, k)),
                    lambda v: lax.mul(lax.tanh(v), 2.0), x)


def _fori(rng, x):
    k = rng.random()
    return lax.fori_loop(0, rng.randint(0, 3), lambda i, c: lax.tanh(lax.add(c, k)), x)


def _scan(rng, x):
    a = _aval(x)
    init = lax.full(a.shape[1:], 0.5, a.dtype)

    def body(c, xi):
        return lax.tanh(lax.add(c, xi)), lax.mul(c, lax.sin(xi))
    c, ys = lax.scan(body, init, x, reverse=rng.random() < 0.5)
    return ys if rng.random() < 0.5 else c


_BIN = {"add": lax.add, "sub": lax.sub, "mul": lax.mul}

OPS = [
    ("squash", 1, lambda s: True, _squash),
    ("exp_tanh", 1, lambda s: True, lambda r, x: lax.exp(lax.tanh(x))),
    ("cos", 1, lambda s: True, lambda r, x: lax.cos(x)),
    ("neg", 1, lambda s: True, lambda r, x: lax.neg(x)),
    ("square", 1, lambda s: True, lambda r, x: lax.integer_pow(x, 2)),
    ("log1p_sq", 1, lambda s: True, lambda r, x: lax.log1p(lax.mul(x, x))),
    ("reduce", 1, lambda s: len(s[0]) > 0, _reduce),
    ("reshape", 1, lambda s: True, _reshape),
    ("transpose", 1, lambda s: len(s[0]) > 1, _transpose),
    ("broadcast", 1, lambda s: len(s[0]) < 2, _broadcast),
    ("slice", 1, lambda s: len(s[0]) > 0, _slice),
    ("pad", 1, lambda s: len(s[0]) > 0, _pad),
    ("rev", 1, lambda s: len(s[0]) > 0, lambda r, x: lax.rev(x, (0,))),
    ("cumsum", 1, lambda s: len(s[0]) > 0, _cumsum),
    ("binary", 2, lambda s: s[0] == s[1], lambda r, x, y: _BIN[r.choice(sorted(_BIN))](x, y)),
    ("scalar_binary", 2, lambda s: s[1] == (), lambda r, x, y: lax.mul(
        x, lax.broadcast_in_dim(y, _aval(x).shape, ()))),
    ("select", 2, lambda s: s[0] == s[1], _select),
    ("dot", 2, lambda s: len(s[0]) >= 1 and len(s[1]) >= 1 and s[0][-1] == s[1][0], _dot),
    ("cond", 1, lambda s: True, _cond),
    ("fori", 1, lambda s: True, _fori),
    ("scan", 1, lambda s: len(s[0]) > 0, _scan),
    ("concat", 2, lambda s: len(s[0]) > 0 and len(s[0]) == len(s[1]) and all(
        a == b for a, b in zip(s[0][1:], s[1][1:])) and s[0][0] == s[1][0], _concat),
]


class Program:
    """Input shapes and a recipe: `build(*tracers)` replays the same random choices."""

    def __init__(self, seed):
        self.seed = seed
        rng = random.Random(seed)
        self.in_shapes = [rng.choice(SHAPES) for _ in range(rng.randint(1, 3))]
        self.n_ops = rng.randint(3, 9)
        self.n_out = rng.randint(1, 2)

    def build(self, *xs):
        rng = random.Random(self.seed * 7919 + 1)
        pool = list(xs)
        for _ in range(self.n_ops):
            for _attempt in range(20):
                name, arity, ok, fn = rng.choice(OPS)
                args = [rng.choice(pool) for _ in range(arity)]
                if ok([_aval(a).shape for a in args]):
                    pool.append(fn(rng, *args))
                    break
        outs = [pool[-1]] + [rng.choice(pool[len(xs):] or pool) for _ in range(self.n_out - 1)]
        return outs

    def inputs(self, rng):
        return [rng.uniform(-1.5, 1.5, s) for s in self.in_shapes]

    def __repr__(self):
        return f"Program(seed={self.seed}, in_shapes={self.in_shapes})"


# ------------------------------------------------------------------ the checks

def _ref(cj, args):
    return [np.asarray(o) for o in core.eval_reference(cj.jaxpr, cj.consts, *args)]


def _close(a, b, tol=1e-7):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol)


def _stage(p):
    return core.stage(p.build, [core.ShapedArray(s, np.dtype("float64")) for s in p.in_shapes])


def check_stage(p, cj, xs, rng):
    check_jaxpr(cj)
    ref = _ref(cj, xs)
    got = astjax.jit(core.raw(lambda *a: core.inline_jaxpr(cj.jaxpr, cj.consts, a)))(*xs)
    assert all(_close(r, g) for r, g in zip(ref, got)), "jit differs from the reference"


def _jvp_tangents(cj, xs, ts):
    jvp, out_nz = ad.jvp_jaxpr(cj, [True] * len(xs), instantiate=True)
    check_jaxpr(jvp)
    outs = _ref(jvp, list(xs) + list(ts))
    return outs[:len(cj.jaxpr.outvars)], outs[len(cj.jaxpr.outvars):]


def check_jvp(p, cj, xs, rng):
    ts = [rng.standard_normal(np.shape(x)) for x in xs]
    prim, tan = _jvp_tangents(cj, xs, ts)
    assert all(_close(a, b) for a, b in zip(prim, _ref(cj, xs))), "jvp primal outputs"
    h = 1e-5
    mid = _ref(cj, xs)
    hi = _ref(cj, [x + h * t for x, t in zip(xs, ts)])
    lo = _ref(cj, [x - h * t for x, t in zip(xs, ts)])
    # A branch whose predicate sits on its threshold at xs (e.g. `sum(concat(-a, a)) > 0`)
    # makes the function jump there: its one-sided differences disagree and no
    # derivative exists to check against.
    if not all(_close((a - m) / h, (m - b) / h, 1e-2) for a, m, b in zip(hi, mid, lo)):
        return
    fd = [(a - b) / (2 * h) for a, b in zip(hi, lo)]
    assert all(_close(a, b, 1e-4) for a, b in zip(tan, fd)), \
        f"jvp tangents differ from central differences: {tan} vs {fd}"


def check_linearize(p, cj, xs, rng):
    known, lin, out_nz, nres = ad.linearize_jaxpr(cj, [True] * len(xs))
    check_jaxpr(known)
    check_jaxpr(lin)
    ts = [rng.standard_normal(np.shape(x)) for x in xs]
    kout = _ref(known, xs)
    n_out = len(cj.jaxpr.outvars)
    assert all(_close(a, b) for a, b in zip(kout[:n_out], _ref(cj, xs))), "linearize primals"
    tan = _ref(lin, kout[n_out:] + ts)
    _, want = _jvp_tangents(cj, xs, ts)
    assert all(_close(a, b) for a, b in zip(tan, want)), "linearize tangents differ from jvp"


def check_vjp(p, cj, xs, rng):
    fwd, bwd, out_nz, nres = ad.vjp_jaxpr(cj, [True] * len(xs))
    check_jaxpr(fwd)
    check_jaxpr(bwd)
    n_out = len(cj.jaxpr.outvars)
    fout = _ref(fwd, xs)
    cts = [rng.standard_normal(np.shape(o)) for o in fout[:n_out]]
    x_cts = _ref(bwd, fout[n_out:] + cts)
    ts = [rng.standard_normal(np.shape(x)) for x in xs]
    _, tan = _jvp_tangents(cj, xs, ts)
    lhs = sum(float(np.sum(c * t)) for c, t in zip(cts, tan))
    rhs = sum(float(np.sum(c * t)) for c, t in zip(x_cts, ts))
    assert abs(lhs - rhs) <= 1e-7 * (1 + abs(lhs)), f"<ct, J t> = {lhs} but <J^T ct, t> = {rhs}"


def check_vmap(p, cj, xs, rng):
    size = 2
    dims = [rng.choice([None, 0] + list(range(1, np.ndim(x) + 1))) for x in xs]
    if all(d is None for d in dims):
        dims[0] = 0
    bxs = [x if d is None else np.stack([x + k for k in range(size)], d) for x, d in zip(xs, dims)]
    holder = []

    def fn(*args):
        outs, out_dims = batching.batch_jaxpr(cj, dims, size, None, args)
        holder.append(out_dims)
        return outs
    bj = core.stage(fn, [core.ShapedArray(np.shape(b), np.dtype("float64")) for b in bxs])
    check_jaxpr(bj)
    got = _ref(bj, bxs)
    for k in range(size):
        want = _ref(cj, [x if d is None else np.take(b, k, d) for x, b, d in zip(xs, bxs, dims)])
        for g, w, od in zip(got, want, holder[0]):
            g_k = g if od is None else np.take(g, k, od)
            assert _close(g_k, w), f"vmap example {k} differs"


def check_dce(p, cj, xs, rng):
    n_out = len(cj.jaxpr.outvars)
    used = [rng.random() < 0.6 for _ in range(n_out)]
    if not any(used):
        used[0] = True
    jaxpr, used_in = dce.dce_jaxpr(cj.jaxpr, used)
    check_jaxpr(jaxpr)
    got = [np.asarray(o) for o in core.eval_reference(jaxpr, cj.consts, *xs)]
    want = [o for o, u in zip(_ref(cj, xs), used) if u]
    assert all(_close(a, b) for a, b in zip(got, want)), "dce changed the used outputs"


def check_partial_eval(p, cj, xs, rng):
    unknowns = [rng.random() < 0.5 for _ in xs]
    known, unknown, out_uk, nres = ad.partial_eval_jaxpr(cj, unknowns)
    check_jaxpr(known)
    check_jaxpr(unknown)
    kout = _ref(known, [x for x, u in zip(xs, unknowns) if not u])
    n_known = sum(1 for u in out_uk if not u)
    uout = _ref(unknown, kout[n_known:] + [x for x, u in zip(xs, unknowns) if u])
    ki, ui = iter(kout[:n_known]), iter(uout)
    got = [next(ui) if u else next(ki) for u in out_uk]
    assert all(_close(a, b) for a, b in zip(got, _ref(cj, xs))), "partial_eval recombined"


def check_cleanup(p, cj, xs, rng):
    out = ad.cleanup(cj)
    check_jaxpr(out)
    assert all(_close(a, b) for a, b in zip(_ref(out, xs), _ref(cj, xs))), "cleanup changed it"


_CHECK_FNS = {"stage": check_stage, "jvp": check_jvp, "linearize": check_linearize,
              "vjp": check_vjp, "vmap": check_vmap, "dce": check_dce,
              "partial_eval": check_partial_eval, "cleanup": check_cleanup}


def run_seed(seed, checks=CHECKS):
    """-> {check: None (pass) or 'ExcType: message'} for the program of `seed` (float64:
    x64 is switched on for the run and restored)."""
    old = config.read("jax_enable_x64")
    config.update("jax_enable_x64", True)
    try:
        p = Program(seed)
        rng = np.random.default_rng(seed)
        xs = p.inputs(rng)
        try:
            cj = _stage(p)
        except Exception as e:  # noqa: BLE001 -- reported as the stage check's failure
            return {"stage": f"{type(e).__name__}: {e}"}
        out = {}
        for c in checks:
            try:
                _CHECK_FNS[c](p, cj, xs, rng)
                out[c] = None
            except Exception as e:  # noqa: BLE001 -- the failure is the finding
                tb = traceback.extract_tb(e.__traceback__)[-1]
                out[c] = f"{type(e).__name__} at {tb.filename}:{tb.lineno}: {str(e)[:300]}"
        return out
    finally:
        config.update("jax_enable_x64", old)


def main(argv):
    lo, hi = map(int, (argv[0] if argv else "0:50").split(":"))
    fails = 0
    for seed in range(lo, hi):
        bad = {c: m for c, m in run_seed(seed).items() if m}
        fails += bool(bad)
        for c, m in bad.items():
            print(f"seed {seed} {c}: {m}")
    print(f"{hi - lo - fails}/{hi - lo} programs pass every check")
    return fails


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1:]) else 0)
