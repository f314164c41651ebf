"""The API fuzzer's wider call table, drawn from seed `FIRST_WIDE` on (`api_gen.generate`);
seeds below it draw from `api_gen.TABLE` alone, so their calls stay as recorded.

Added: lax functions with their parameters (slices, dynamic slices, reversals,
broadcasts, reductions of precision, the special functions' primitives with Python
scalars), `jnp.linalg` and `jax.scipy.linalg` on small well-conditioned matrices,
more `jax.nn` functions, and `jax.random` samplers on fixed raw keys (`random.*`) and
on typed keys (`random_typed.*`: the raw key wrapped by `random.wrap_key_data` inside
the call)."""
from __future__ import annotations

import numpy as np

from .api_gen import (FLOAT, INEXACT, INT, NUM, ALL, SINT, _pick, _shape, array, np_dtype,
                      py_scalar)

FIRST_WIDE = 40000
REAL = ["float32", "float64"]
LINALG_DT = ["float32", "float64", "complex64"]


def _hex(v, dtype):
    return {"a": dtype, "shape": list(np.shape(v)), "hex": np.asarray(v, np_dtype(dtype)).tobytes().hex()}


def _clean(rng, dtype, shape):
    """Well-scaled values without edges (a matrix argument)."""
    v = rng.standard_normal(shape)
    if "complex" in dtype:
        v = v + 1j * rng.standard_normal(shape)
    return _hex(v, dtype)


def _square(rng, dtypes, spd=False, sym=False, tri=False):
    n = int(_pick(rng, [1, 2, 3]))
    lead = tuple(_pick(rng, [(), (), (2,)]))
    dt = _pick(rng, dtypes)
    v = rng.standard_normal(lead + (n, n))
    if "complex" in dt:
        v = v + 1j * rng.standard_normal(lead + (n, n))
    if spd:
        v = v @ np.swapaxes(v, -1, -2).conj() + n * np.eye(n)
    elif sym:
        v = v + np.swapaxes(v, -1, -2).conj()
    elif tri:
        v = np.tril(v) + 3 * np.eye(n)
    return _hex(v, dt), n, lead, dt


def g_lin_unary(dtypes, **kind):
    def g(rng, batch):
        return [_square(rng, dtypes, **kind)[0]], {}
    return g


def g_solve(rng, batch):
    a, n, lead, dt = _square(rng, LINALG_DT)
    b = _clean(rng, dt, lead + ((n,) if rng.random() < 0.5 and not lead else (n, 2)))
    return [a, b], {}


def g_norm(rng, batch):
    s = _pick(rng, [(3,), (2, 3), (3, 3), (2, 2, 3)])
    k = {}
    if rng.random() < 0.7:
        k["ord"] = _pick(rng, [None, 1, 2, -1, -2, np.inf, -np.inf, "fro", "nuc", 0, 3])
        if isinstance(k["ord"], float):
            k["ord"] = float(k["ord"])
    if len(s) >= 2 and rng.random() < 0.5:
        k["axis"] = _pick(rng, [-1, 0, {"t": [0, 1]}, {"t": [-2, -1]}])
    if rng.random() < 0.3:
        k["keepdims"] = True
    return [_clean(rng, _pick(rng, LINALG_DT), s)], k


def g_qr(rng, batch):
    s = _pick(rng, [(2, 3), (3, 2), (2, 2)])
    return [_clean(rng, _pick(rng, LINALG_DT), s)], {"mode": _pick(rng, ["reduced", "complete", "r"])}


def g_svdvals(rng, batch):
    s = _pick(rng, [(2, 3), (3, 2), (2, 2)])
    return [_clean(rng, _pick(rng, LINALG_DT), s)], {"compute_uv": False}


def g_matrix_power(rng, batch):
    a = _square(rng, LINALG_DT, tri=True)[0]
    return [a, int(rng.integers(-2, 4))], {}


def g_solve_triangular(rng, batch):
    a, n, lead, dt = _square(rng, REAL + ["complex64"], tri=True)
    b = _clean(rng, dt, lead + (n, int(_pick(rng, [1, 2]))))
    k = {"lower": True}
    if rng.random() < 0.5:
        k["trans"] = int(_pick(rng, [0, 1, 2]))
    if rng.random() < 0.3:
        k["unit_diagonal"] = True
    return [a, b], k


def g_expm(rng, batch):
    a, n, lead, dt = _square(rng, REAL)
    return [a], {}


# ------------------------------------------------------------------ lax with parameters

def g_reduce_precision(rng, batch):
    return [array(rng, _pick(rng, FLOAT), _shape(rng))], {
        "exponent_bits": int(_pick(rng, [2, 5, 8, 11])), "mantissa_bits": int(_pick(rng, [1, 3, 7, 10, 23]))}


def g_rev(rng, batch):
    s = _shape(rng, 1)
    dims = sorted({int(d) for d in rng.integers(0, len(s), int(rng.integers(0, len(s) + 1)))})
    return [array(rng, _pick(rng, ALL), s), {"t": dims}], {}


def g_slice(rng, batch):
    s = _shape(rng, 1)
    start = [int(rng.integers(0, d + 1)) for d in s]
    limit = [int(rng.integers(a, d + 1)) for a, d in zip(start, s)]
    args = [array(rng, _pick(rng, ALL), s), {"t": start}, {"t": limit}]
    if rng.random() < 0.4:
        args.append({"t": [int(_pick(rng, [1, 2])) for _ in s]})
    return args, {}


def g_dynamic_slice(rng, batch):
    s = _shape(rng, 1)
    starts = [py_scalar(rng, "int") if rng.random() < 0.3 else int(rng.integers(-2, d + 2)) for d in s]
    sizes = {"t": [int(rng.integers(0, d + 1)) for d in s]}
    return [array(rng, _pick(rng, ALL), s), starts, sizes], {}


def g_dynamic_update_slice(rng, batch):
    s = _shape(rng, 1)
    dt = _pick(rng, ALL)
    us = [int(rng.integers(0, d + 1)) for d in s]
    starts = [int(rng.integers(-2, d + 2)) for d in s]
    return [array(rng, dt, s), array(rng, dt if rng.random() < 0.9 else _pick(rng, ALL), us), starts], {}


def g_broadcast_in_dim(rng, batch):
    s = _pick(rng, [(), (3,), (1, 3), (2, 1)])
    out = {(): (2, 3), (3,): (2, 3), (1, 3): (2, 4, 3), (2, 1): (2, 5)}[s]
    dims = {(): [], (3,): [1], (1, 3): [0, 2], (2, 1): [0, 1]}[s]
    return [array(rng, _pick(rng, ALL), s), {"t": list(out)}, {"t": dims}], {}


def g_lax_transpose(rng, batch):
    s = _shape(rng)
    return [array(rng, _pick(rng, ALL), s), {"t": rng.permutation(len(s)).tolist()}], {}


def g_lax_argmax(rng, batch):
    s = _shape(rng, 1)
    return [array(rng, _pick(rng, INT + FLOAT + ["bool"]), s), int(rng.integers(0, len(s))),
            {"d": _pick(rng, ["int32", "int64", "int8", "uint8"])}], {}


def g_lax_squeeze(rng, batch):
    s = _pick(rng, [(1, 3), (3, 1), (2, 1, 3), (1,), (1, 1)])
    dims = [i for i, d in enumerate(s) if d == 1 and rng.random() < 0.8]
    return [array(rng, _pick(rng, ALL), s), {"t": dims}], {}


def g_lax_expand_dims(rng, batch):
    s = _shape(rng)
    return [array(rng, _pick(rng, ALL), s), {"t": [int(rng.integers(-len(s) - 1, len(s) + 1))]}], {}


def g_select_n(rng, batch):
    s = _shape(rng)
    n = int(_pick(rng, [1, 2, 3]))
    dt = _pick(rng, ALL)
    if n <= 2 and rng.random() < 0.5:
        which = array(rng, "bool", _pick(rng, [s, ()]))
    else:
        v = rng.integers(0, n, int(np.prod(s, dtype=np.int64)))
        which = _hex(v.reshape(s), _pick(rng, ["int32", "uint8"]))
    return [which] + [array(rng, dt, s) for _ in range(n)], {}


def g_lax_parts(rng, batch):
    return [array(rng, _pick(rng, INEXACT), _shape(rng))], {}


def g_lax_sort(rng, batch):
    s = _shape(rng, 1)
    k = {"dimension": int(rng.integers(0, len(s)))}
    if rng.random() < 0.4:
        k["is_stable"] = bool(rng.random() < 0.5)
    return [array(rng, _pick(rng, INT + FLOAT + ["bool"]), s)], k


def g_lax_special2(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, FLOAT)
    b = array(rng, dt, s) if rng.random() < 0.7 else py_scalar(rng, _pick(rng, ["float", "int"]))
    return [array(rng, dt, s), b], {}


def g_lax_betainc(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, REAL)
    return [array(rng, dt, s), array(rng, dt, s), _hex(rng.random(s), dt)], {}


def g_lax_iota(rng, batch):
    return [{"d": _pick(rng, NUM)}, int(rng.integers(0, 5))], {}


def g_dot_general(rng, batch):
    a, b, dn = _pick(rng, [((2, 3), (3, 4), [[[1], [0]], [[], []]]),
                           ((2, 2, 3), (2, 3, 1), [[[2], [1]], [[0], [0]]]),
                           ((3,), (3,), [[[0], [0]], [[], []]])])
    dt = _pick(rng, NUM)
    k = {}
    if rng.random() < 0.3:
        k["preferred_element_type"] = {"d": _pick(rng, ["float32", "int32", "float64"])}
    dnt = {"t": [{"t": [{"t": x} for x in part]} for part in dn]}
    return [array(rng, dt, a), array(rng, dt, b), dnt], k


# ---------------------------------------------------------------------------------- nn

def g_nn_wide(axis=False):
    def g(rng, batch):
        s = _shape(rng, 1 if axis else 0)
        k = {}
        if axis and rng.random() < 0.7:
            k["axis"] = int(rng.integers(-len(s), len(s)))
        return [array(rng, _pick(rng, FLOAT), s)], k
    return g


# ------------------------------------------------------------------------------ random

def _key(rng):
    return _hex(np.array([0, rng.integers(0, 2**31)], np.uint32), "uint32")


def g_random(kind):
    def g(rng, batch):
        key = _key(rng)
        shape = {"t": list(_pick(rng, [(), (3,), (2, 3), (0,)]))}
        dt = {"d": _pick(rng, FLOAT)}
        if kind == "float":
            return [key, shape, dt], {}
        if kind == "uniform":
            k = {}
            if rng.random() < 0.5:
                k["minval"], k["maxval"] = float(_pick(rng, [-1.0, 0.0, 2.0])), float(_pick(rng, [1.0, 3.0, 2.0]))
            return [key, shape, dt], k
        if kind == "randint":
            return [key, shape, int(_pick(rng, [-3, 0, 5])), int(_pick(rng, [1, 7, 300])),
                    {"d": _pick(rng, SINT + ["uint8", "uint32"])}], {}
        if kind == "bernoulli":
            return [key, float(_pick(rng, [0.0, 0.3, 0.5, 1.0])), shape], {}
        if kind == "bits":
            return [key, shape, {"d": _pick(rng, ["uint8", "uint16", "uint32", "uint64"])}], {}
        if kind == "permutation":
            x = int(rng.integers(0, 6)) if rng.random() < 0.5 else array(rng, "int32", (4,))
            return [key, x], ({"independent": True} if rng.random() < 0.2 else {})
        if kind == "choice":
            k = {"shape": {"t": [int(rng.integers(0, 4))]}}
            if rng.random() < 0.5:
                k["replace"] = False
            return [key, int(rng.integers(3, 7))], k
        if kind == "categorical":
            s = _pick(rng, [(3,), (2, 3)])
            return [key, _clean(rng, "float32", s)], ({"axis": 0} if rng.random() < 0.3 else {})
        if kind == "truncated_normal":
            return [key, float(_pick(rng, [-2.0, 0.0])), float(_pick(rng, [1.0, 2.0])), shape, dt], {}
        if kind == "split":
            return [key, int(_pick(rng, [1, 2, 3]))], {}
        return [key, int(rng.integers(0, 100))], {}   # fold_in
    return g


WIDE: dict = {
    "linalg.det": (g_lin_unary(LINALG_DT), True), "linalg.inv": (g_lin_unary(LINALG_DT, tri=True), True),
    "linalg.slogdet": (g_lin_unary(LINALG_DT), False), "linalg.solve": (g_solve, True),
    "linalg.norm": (g_norm, True), "linalg.cholesky": (g_lin_unary(LINALG_DT, spd=True), True),
    "linalg.eigvalsh": (g_lin_unary(LINALG_DT, sym=True), True), "linalg.qr": (g_qr, False),
    "linalg.svd": (g_svdvals, False), "linalg.matrix_power": (g_matrix_power, True),
    "linalg.pinv": (g_lin_unary(REAL, tri=True), False), "linalg.trace": (g_lin_unary(LINALG_DT), True),
    "sla.solve_triangular": (g_solve_triangular, True), "sla.expm": (g_expm, False),
    "sla.det": (g_lin_unary(REAL), False), "sla.inv": (g_lin_unary(REAL, tri=True), False),
    "lax.reduce_precision": (g_reduce_precision, False), "lax.rev": (g_rev, True),
    "lax.slice": (g_slice, True), "lax.dynamic_slice": (g_dynamic_slice, True),
    "lax.dynamic_update_slice": (g_dynamic_update_slice, False),
    "lax.broadcast_in_dim": (g_broadcast_in_dim, True), "lax.transpose": (g_lax_transpose, True),
    "lax.argmax": (g_lax_argmax, False), "lax.argmin": (g_lax_argmax, False),
    "lax.squeeze": (g_lax_squeeze, True), "lax.expand_dims": (g_lax_expand_dims, True),
    "lax.select_n": (g_select_n, False), "lax.real": (g_lax_parts, False),
    "lax.imag": (g_lax_parts, False), "lax.conj": (g_lax_parts, False), "lax.sort": (g_lax_sort, False),
    "lax.igamma": (g_lax_special2, False), "lax.igammac": (g_lax_special2, False),
    "lax.zeta": (g_lax_special2, False), "lax.polygamma": (g_lax_special2, False),
    "lax.betainc": (g_lax_betainc, False), "lax.iota": (g_lax_iota, False),
    "lax.dot_general": (g_dot_general, False),
    "lax.bessel_i0e": (lambda rng, b: ([array(rng, _pick(rng, FLOAT), _shape(rng))], {}), True),
    "lax.bessel_i1e": (lambda rng, b: ([array(rng, _pick(rng, FLOAT), _shape(rng))], {}), True),
    "nn.glu": (g_nn_wide(axis=True), True), "nn.soft_sign": (g_nn_wide(), True),
    "nn.swish": (g_nn_wide(), True), "nn.hard_swish": (g_nn_wide(), True),
    "nn.log1mexp": (g_nn_wide(), True), "nn.identity": (g_nn_wide(), True),
    "nn.tanh": (g_nn_wide(), True),
}
for _n, _k in [("uniform", "uniform"), ("normal", "float"), ("gumbel", "float"),
               ("exponential", "float"), ("laplace", "float"), ("logistic", "float"),
               ("cauchy", "float"), ("randint", "randint"), ("bernoulli", "bernoulli"),
               ("bits", "bits"), ("permutation", "permutation"), ("choice", "choice"),
               ("categorical", "categorical"), ("truncated_normal", "truncated_normal")]:
    WIDE["random." + _n] = (g_random(_k), False)
    WIDE["random_typed." + _n] = (g_random(_k), False)
WIDE["random.split"] = (g_random("split"), False)
WIDE["random.fold_in"] = (g_random("fold_in"), False)
