"""The API fuzzer's third call table, drawn from seed `FIRST_NAMES` on (`api_gen.generate`);
seeds below it draw as recorded.

Added: public names astjax serves that the first two tables missed (compared with
docs/jax_names.json), the most used first: `jnp` statistics (median, percentile,
quantile, average, cov, corrcoef), matrix helpers (trace, diag, diagonal, tril, triu),
layout functions (moveaxis, swapaxes, rot90, fliplr, flipud, broadcast_to, pad,
atleast_2d, hstack, vstack), `*_like` constructors, polynomial and signal helpers (kron,
cross, convolve, correlate, interp, polyval, trapezoid, vander, ediff1d, unwrap,
gradient), selections (select, digitize, isin, partition, argpartition, nanargmax),
`lax` reductions and shape functions, and `scipy.special` / `nn` functions with several
arguments."""
from __future__ import annotations

import numpy as np

from .api_gen import (BOOL, FLOAT, INEXACT, INT, NUM, _axis, _pick, _shape, array, g_unary,
                      py_scalar)

FIRST_NAMES = 60000
REALNUM = INT + FLOAT


def _arr(dtypes, min_ndim=0):
    def g(rng, batch):
        return [array(rng, _pick(rng, dtypes), _shape(rng, min_ndim))], {}
    return g


def g_stat(kind):
    def g(rng, batch):
        s = _shape(rng)
        k = {"axis": _axis(rng, len(s))} if rng.random() < 0.7 else {}
        if rng.random() < 0.3:
            k["keepdims"] = True
        x = array(rng, _pick(rng, REALNUM + BOOL), s)
        if kind == "q":
            q = _pick(rng, [0.5, 0.0, 1.0, 0.25, 50.0, 100.0, 30.0])
            q = q / 100 if rng.random() < 0.5 else q
            args = [x, {"py": float(q)} if rng.random() < 0.7 else
                    {"a": "float32", "shape": [2], "hex": np.array([q, 0.0], np.float32)
                     .tobytes().hex()}]
            if rng.random() < 0.4:
                k["method"] = _pick(rng, ["linear", "lower", "higher", "nearest", "midpoint"])
            return args, k
        if kind == "average" and rng.random() < 0.5 and s:
            k = {"axis": -1, "weights": array(rng, _pick(rng, FLOAT), (s[-1],))}
        return [x], k
    return g


def g_cov(rng, batch):
    s = _pick(rng, [(3,), (2, 3), (3, 4), (1, 3)])
    k = {}
    if rng.random() < 0.3:
        k["rowvar"] = False
    if rng.random() < 0.3:
        k["ddof"] = int(rng.integers(0, 3))
    return [array(rng, _pick(rng, REALNUM + ["complex64"]), s)], k


def g_matrix(fn):
    def g(rng, batch):
        s = _shape(rng, 2 if fn in ("trace", "tril", "triu", "diagonal") else 1)
        k = {}
        if fn in ("trace", "tril", "triu", "diagonal", "diag") and rng.random() < 0.5:
            k["k" if fn in ("tril", "triu", "diag") else "offset"] = int(rng.integers(-2, 3))
        if fn == "diag":
            s = _pick(rng, [(3,), (2, 3), (4,), (0,)])
        return [array(rng, _pick(rng, NUM + BOOL), s)], k
    return g


def g_axes2(fn):
    def g(rng, batch):
        s = _shape(rng, 1)
        x = array(rng, _pick(rng, NUM + BOOL), s)
        n = len(s)
        a, b = int(rng.integers(-n, n)), int(rng.integers(-n, n))
        if fn == "rot90":
            return [x], ({"k": int(rng.integers(-2, 4))} if n >= 2 else {"axes": (0, 0)})
        return [x, a, b], {}
    return g


def g_broadcast_to(rng, batch):
    s = _shape(rng)
    target = _pick(rng, [(2,) + s, s, (3,) + s, (2, 1) + s, (4,)])
    return [array(rng, _pick(rng, NUM), s), {"t": list(target)}], {}


def g_pad(rng, batch):
    s = _shape(rng, 1)
    w = _pick(rng, [1, (1, 2), ((0, 1),) * len(s), 0])
    w = {"t": [{"t": list(p)} for p in w]} if isinstance(w, tuple) and isinstance(w[0], tuple) \
        else ({"t": list(w)} if isinstance(w, tuple) else w)
    k = {}
    mode = _pick(rng, ["constant", "constant", "edge", "reflect", "wrap", "symmetric",
                       "linear_ramp", "maximum", "mean"])
    if mode != "constant":
        k["mode"] = mode
    elif rng.random() < 0.4:
        k["constant_values"] = float(_pick(rng, [1.0, -2.5]))
    return [array(rng, _pick(rng, NUM), s), w], k


def g_like(fn):
    def g(rng, batch):
        x = array(rng, _pick(rng, NUM + BOOL), _shape(rng))
        k = {"dtype": {"d": _pick(rng, NUM + BOOL)}} if rng.random() < 0.4 else {}
        if fn == "full_like":
            return [x, py_scalar(rng, _pick(rng, ["int", "float", "bool"]))], k
        return [x], k
    return g


def g_pair(dtypes, shapes):
    def g(rng, batch):
        a, b = _pick(rng, shapes)
        return [array(rng, _pick(rng, dtypes), a), array(rng, _pick(rng, dtypes), b)], {}
    return g


def g_conv(rng, batch):
    a, v = _pick(rng, [(5,), (4,), (3,), (1,)]), _pick(rng, [(3,), (2,), (1,), (4,)])
    k = {"mode": _pick(rng, ["full", "same", "valid"])} if rng.random() < 0.6 else {}
    dt = _pick(rng, REALNUM + ["complex64"])
    return [array(rng, dt, a), array(rng, dt, v)], k


def g_interp(rng, batch):
    xp = np.sort(rng.standard_normal(4)).astype(np.float32)
    x = array(rng, _pick(rng, FLOAT), _shape(rng))
    k = {}
    if rng.random() < 0.3:
        k["left"], k["right"] = -1.0, 2.0
    return [x, {"a": "float32", "shape": [4], "hex": xp.tobytes().hex()},
            array(rng, _pick(rng, ["float32", "float64"]), (4,))], k


def g_polyval(rng, batch):
    return [array(rng, _pick(rng, REALNUM), _pick(rng, [(3,), (1,), (4,)])),
            array(rng, _pick(rng, REALNUM), _shape(rng))], {}


def g_select(rng, batch):
    s = _shape(rng)
    n = int(_pick(rng, [1, 2, 3]))
    dt = _pick(rng, NUM)
    conds = {"t": [array(rng, "bool", s) for _ in range(n)]}
    choices = {"t": [array(rng, dt, s) for _ in range(n)]}
    k = {"default": float(_pick(rng, [0.0, -1.0]))} if rng.random() < 0.4 else {}
    return [conds, choices], k


def g_digitize(rng, batch):
    bins = np.sort(rng.integers(-5, 6, 4)).astype(np.float32)
    if rng.random() < 0.3:
        bins = bins[::-1].copy()
    k = {"right": True} if rng.random() < 0.4 else {}
    return [array(rng, _pick(rng, REALNUM), _shape(rng)),
            {"a": "float32", "shape": [4], "hex": bins.tobytes().hex()}], k


def g_isin(rng, batch):
    k = {"invert": True} if rng.random() < 0.3 else {}
    return [array(rng, _pick(rng, REALNUM), _shape(rng)),
            array(rng, _pick(rng, REALNUM), _pick(rng, [(3,), (2, 2), ()]))], k


def g_partition(rng, batch):
    s = _shape(rng, 1)
    return [array(rng, _pick(rng, REALNUM), s), int(rng.integers(0, s[-1] + 1))], {}


def g_nanarg(rng, batch):
    s = _shape(rng)
    k = {"axis": _axis(rng, len(s), allow_tuple=False)} if rng.random() < 0.6 else {}
    return [array(rng, _pick(rng, FLOAT), s)], k


def g_gradient(rng, batch):
    s = _pick(rng, [(3,), (2, 3), (4,), (3, 2)])
    k = {"axis": int(rng.integers(-len(s), len(s)))} if rng.random() < 0.5 else {}
    return [array(rng, _pick(rng, FLOAT + INT), s)], k


def g_lax_reduce(rng, batch):
    s = _shape(rng)
    axes = sorted({int(a) for a in rng.integers(0, max(len(s), 1), 2)}) if s else []
    return [array(rng, _pick(rng, NUM), s), {"t": axes}], {}


def g_lax_pad(rng, batch):
    s = _shape(rng)
    cfg = {"t": [{"t": [int(rng.integers(-1, 3)), int(rng.integers(-1, 3)),
                        int(rng.integers(0, 2))]} for _ in s]}
    dt = _pick(rng, NUM)
    return [array(rng, dt, s), array(rng, dt, ()), cfg], {}


def g_lax_concat(rng, batch):
    s = _shape(rng, 1)
    dim = int(rng.integers(0, len(s)))
    t = list(s)
    t[dim] = int(rng.integers(0, 3))
    dt = _pick(rng, NUM)
    return [{"t": [array(rng, dt, s), array(rng, dt, tuple(t))]}, dim], {}


def g_in_dim(fn):
    def g(rng, batch):
        s = _shape(rng, 1)
        axis = int(rng.integers(0, len(s)))
        x = array(rng, _pick(rng, NUM), s)
        if fn == "index_in_dim":
            return [x, int(rng.integers(-s[axis], s[axis])) if s[axis] else 0, axis], \
                ({"keepdims": False} if rng.random() < 0.5 else {})
        if fn == "slice_in_dim":
            return [x, int(rng.integers(0, s[axis] + 1)), None, 1, axis], {}
        return [x, {"py": int(rng.integers(-3, 4))}, int(rng.integers(0, s[axis] + 1)), axis], {}
    return g


def g_lax_reshape(rng, batch):
    s = _shape(rng)
    n = int(np.prod(s))
    new = _pick(rng, [(n,), (1, n), (n, 1)])
    k = {"dimensions": {"t": list(range(len(s)))[::-1]}} if rng.random() < 0.3 and s else {}
    return [array(rng, _pick(rng, NUM), s), {"t": list(new)}], k


def g_special3(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, ["float32", "float64"])
    return [array(rng, dt, s), array(rng, dt, s), {"a": dt, "shape": list(s),
                                                   "hex": rng.random(s).astype(dt).tobytes().hex()}], {}


def g_special2(dtypes, second="same"):
    def g(rng, batch):
        s = _shape(rng)
        dt = _pick(rng, dtypes)
        if second == "int":   # multigammaln(a, d)
            return [array(rng, dt, s), int(rng.integers(1, 4))], {}
        if second == "order":   # expn(n, x)
            return [array(rng, "int32", s), array(rng, dt, s)], {}
        return [array(rng, dt, s), array(rng, dt, s) if rng.random() < 0.7 else
                py_scalar(rng, _pick(rng, ["float", "int"]))], {}
    return g


def g_softmax(rng, batch):
    s = _shape(rng, 1)
    k = {"axis": int(rng.integers(-len(s), len(s)))} if rng.random() < 0.6 else {}
    return [array(rng, _pick(rng, FLOAT), s)], k


NAMES: dict = {
    "jnp.median": (g_stat("m"), True), "jnp.nanmedian": (g_stat("m"), False),
    "jnp.percentile": (g_stat("q"), True), "jnp.quantile": (g_stat("q"), True),
    "jnp.nanpercentile": (g_stat("q"), False), "jnp.nanquantile": (g_stat("q"), False),
    "jnp.average": (g_stat("average"), True), "jnp.cov": (g_cov, True),
    "jnp.corrcoef": (g_cov, False),
    "jnp.trace": (g_matrix("trace"), True), "jnp.diag": (g_matrix("diag"), True),
    "jnp.diagonal": (g_matrix("diagonal"), True), "jnp.tril": (g_matrix("tril"), True),
    "jnp.triu": (g_matrix("triu"), True),
    "jnp.moveaxis": (g_axes2("moveaxis"), True), "jnp.swapaxes": (g_axes2("swapaxes"), True),
    "jnp.rot90": (g_axes2("rot90"), True), "jnp.fliplr": (_arr(NUM + BOOL, 2), True),
    "jnp.flipud": (_arr(NUM + BOOL, 1), True), "jnp.broadcast_to": (g_broadcast_to, True),
    "jnp.pad": (g_pad, True), "jnp.atleast_2d": (_arr(NUM + BOOL), False),
    "jnp.matrix_transpose": (_arr(NUM, 2), True),
    "jnp.zeros_like": (g_like("zeros_like"), False), "jnp.ones_like": (g_like("ones_like"), False),
    "jnp.full_like": (g_like("full_like"), False),
    "jnp.kron": (g_pair(NUM, [((2,), (3,)), ((2, 2), (1, 3)), ((), (2,))]), True),
    "jnp.cross": (g_pair(REALNUM, [((3,), (3,)), ((2, 3), (3,)), ((2,), (3,)), ((2, 2), (2, 2))]), True),
    "jnp.convolve": (g_conv, True), "jnp.correlate": (g_conv, False),
    "jnp.interp": (g_interp, True), "jnp.polyval": (g_polyval, True),
    "jnp.trapezoid": (_arr(FLOAT + INT, 1), True), "jnp.vander": (_arr(REALNUM, 1), False),
    "jnp.ediff1d": (_arr(NUM), False), "jnp.unwrap": (_arr(FLOAT, 1), True),
    "jnp.gradient": (g_gradient, False), "jnp.select": (g_select, False),
    "jnp.digitize": (g_digitize, False), "jnp.isin": (g_isin, False),
    "jnp.partition": (g_partition, False), "jnp.argpartition": (g_partition, False),
    "jnp.nanargmax": (g_nanarg, False), "jnp.nanargmin": (g_nanarg, False),
    "jnp.cumulative_prod": (_arr(NUM + BOOL, 1), False), "jnp.nancumprod": (_arr(NUM, 1), False),
    "jnp.amin": (g_stat("m"), True), "jnp.absolute": (g_unary(NUM + BOOL), False),
    "jnp.conjugate": (g_unary(NUM), False), "jnp.degrees": (g_unary(FLOAT + INT), True),
    "jnp.radians": (g_unary(FLOAT + INT), True), "jnp.pow": (g_special2(NUM), True),
    "lax.reduce_sum": (g_lax_reduce, True), "lax.reduce_max": (g_lax_reduce, True),
    "lax.reduce_min": (g_lax_reduce, False), "lax.reduce_prod": (g_lax_reduce, False),
    "lax.pad": (g_lax_pad, True), "lax.concatenate": (g_lax_concat, True),
    "lax.index_in_dim": (g_in_dim("index_in_dim"), True),
    "lax.slice_in_dim": (g_in_dim("slice_in_dim"), True),
    "lax.dynamic_slice_in_dim": (g_in_dim("dynamic_slice_in_dim"), True),
    "lax.reshape": (g_lax_reshape, True), "lax.reciprocal": (g_unary(INEXACT), True),
    "lax.bitwise_xor": (g_special2(INT + BOOL), False),
    "lax.gt": (g_special2(REALNUM), False), "lax.le": (g_special2(REALNUM), False),
    "special.betainc": (g_special3, False), "special.boxcox": (g_special2(FLOAT), True),
    "special.boxcox1p": (g_special2(FLOAT), True), "special.poch": (g_special2(FLOAT), True),
    "special.factorial": (g_unary(FLOAT + INT), True),
    "special.multigammaln": (g_special2(FLOAT, "int"), True),
    "special.log_softmax": (g_softmax, True), "special.softmax": (g_softmax, True),
    "special.loggamma": (g_unary(FLOAT), True), "special.beta": (g_special2(FLOAT), True),
    "special.comb": (g_special2(FLOAT), False), "special.owens_t": (g_special2(FLOAT), False),
    "special.dawsn": (g_unary(FLOAT), True), "special.expn": (g_special2(FLOAT, "order"), False),
    "nn.sparse_sigmoid": (g_unary(FLOAT), True), "nn.logmeanexp": (g_softmax, True),
}
