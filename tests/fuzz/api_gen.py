"""Random API calls for the differential API fuzzer (`api_run.py`).

`generate(seed)` returns one call as a JSON-serializable dict:

    {"seed": 7, "fn": "jnp.floor_divide", "args": [ARG, ...], "kw": {"name": ARG},
     "mode": "eager" | "jit" | "vmap" | "grad", "x64": bool}

An ARG is one of (all exact, so a stored call replays bit for bit):

    {"a": dtype, "shape": [..], "hex": raw bytes}   a NumPy array (a dynamic argument)
    {"np": dtype, "hex": raw bytes}                 a NumPy scalar (dynamic)
    {"py": value}                                   a Python scalar: weakly typed (dynamic)
    {"t": [ARG, ..]}  {"s": [start, stop, step]}  {"e": 1}  {"d": dtype}
                                                    a static tuple / slice / Ellipsis / dtype
    a JSON int, float, bool, str, None or list      a static value

Dynamic arguments are the positional arrays and scalars; under `jit` they are the
jitted function's arguments, under `vmap` the arrays carry a leading batch axis of 2
(scalars are broadcast: `in_axes=None`), under `grad` the derivative is taken with
respect to the first argument of `sum(f(...))` (only drawn for functions with a float
output). Static values (axes, shapes, dtypes, modes, keyword arguments) are closed over.
`decode(arg)` turns an ARG into the value passed to both libraries; `render(call)`
prints a runnable repro.
"""
from __future__ import annotations

import numpy as np

try:
    import ml_dtypes
    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - jaxlib always brings ml_dtypes
    _BF16 = None

BOOL = ["bool"]
SINT = ["int8", "int16", "int32", "int64"]
UINT = ["uint8", "uint16", "uint32", "uint64"]
INT = SINT + UINT
FLOAT = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
INEXACT = FLOAT + COMPLEX
NUM = INT + INEXACT
ALL = BOOL + NUM
MODES = ["eager", "jit", "vmap", "grad"]


def np_dtype(name):
    """The NumPy dtype of a dtype name (bfloat16 through ml_dtypes)."""
    return _BF16 if name == "bfloat16" else np.dtype(name)


# ---------------------------------------------------------------- values

def _values(rng, dtype, n):
    dt = np_dtype(dtype)
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype in INT:
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -9), min(info.max, 9) + 1, n)
        edges = [0, 1, info.min, info.max, -1 if info.min < 0 else 2]
        out = v.astype(dt)
        for i in range(n):
            if rng.random() < 0.12:
                out[i] = edges[rng.integers(len(edges))]
        return out
    real = "complex" not in dtype
    scale = rng.choice([1.0, 3.0, 0.5])
    v = rng.standard_normal(n) * scale
    if rng.random() < 0.3:
        v = np.round(v * 2) / 2   # exact halves: ties for round / floor / remainder
    edges = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 2.0, 1e30, -1e-30]
    for i in range(n):
        if rng.random() < 0.1:
            v[i] = edges[rng.integers(len(edges))]
    if real:
        return v.astype(dt)
    im = rng.standard_normal(n) * scale
    return (v + 1j * im).astype(dt)


def array(rng, dtype, shape):
    """An array ARG of `dtype` and `shape` with edge values mixed in."""
    n = int(np.prod(shape, dtype=np.int64))
    with np.errstate(all="ignore"):
        v = np.asarray(_values(rng, dtype, n), np_dtype(dtype)).reshape(shape)
    return {"a": dtype, "shape": list(shape), "hex": v.tobytes().hex()}


def np_scalar(rng, dtype):
    """A NumPy scalar ARG."""
    with np.errstate(all="ignore"):
        v = np.asarray(_values(rng, dtype, 1), np_dtype(dtype))
    return {"np": dtype, "hex": v.tobytes().hex()}


def py_scalar(rng, kind=None):
    """A Python scalar ARG (weakly typed in both libraries)."""
    kind = kind or rng.choice(["int", "float", "float", "bool", "complex"])
    if kind == "int":
        return {"py": int(rng.choice([0, 1, 2, 3, -1, -2, 7, 2**31 - 1, -2**31, 300]))}
    if kind == "bool":
        return {"py": bool(rng.random() < 0.5)}
    if kind == "complex":
        return {"py": {"re": float(rng.choice([0.5, -1.0, 2.0])), "im": float(rng.choice([1.0, -0.5]))}}
    return {"py": float(rng.choice([0.0, -0.0, 0.5, 1.5, -2.5, 2.0, 1e10, np.nan, np.inf, -np.inf]))}


def decode(arg):
    """The Python value an ARG stands for."""
    if isinstance(arg, list):
        return [decode(a) for a in arg]
    if not isinstance(arg, dict):
        return arg
    if "a" in arg:
        return np.frombuffer(bytes.fromhex(arg["hex"]), np_dtype(arg["a"])).reshape(arg["shape"]).copy()
    if "np" in arg:
        return np.frombuffer(bytes.fromhex(arg["hex"]), np_dtype(arg["np"]))[0]
    if "py" in arg:
        v = arg["py"]
        return complex(v["re"], v["im"]) if isinstance(v, dict) else v
    if "t" in arg:
        return tuple(decode(a) for a in arg["t"])
    if "s" in arg:
        return slice(*arg["s"])
    if "e" in arg:
        return Ellipsis
    if "d" in arg:
        return np_dtype(arg["d"])
    raise ValueError(f"bad ARG {arg}")


def is_dynamic(arg):
    """Whether an ARG is a traced argument (array or scalar), not a closed-over static."""
    return isinstance(arg, dict) and ("a" in arg or "np" in arg or "py" in arg)


# ---------------------------------------------------------------- shapes

SHAPES = [(), (3,), (2, 3), (1, 3), (4,), (0,), (2, 0), (3, 1), (2, 1, 3), (5,)]


def _shape(rng, min_ndim=0):
    choices = [s for s in SHAPES if len(s) >= min_ndim]
    return tuple(choices[rng.integers(len(choices))])


def _bshape(rng, shape):
    """A shape broadcasting with `shape` (now and then one that does not)."""
    r = rng.random()
    if r < 0.4:
        return shape
    if r < 0.55:
        return ()
    if r < 0.75 and shape:
        return shape[rng.integers(len(shape) + 1):]
    if r < 0.9 and shape:
        return tuple(1 if rng.random() < 0.5 else d for d in shape)
    return _shape(rng)


def _pick(rng, seq):
    return seq[rng.integers(len(seq))]


def _operand(rng, dtypes, shape):
    """An array most of the time; else a Python or NumPy scalar."""
    r = rng.random()
    if r < 0.7:
        return array(rng, _pick(rng, dtypes), shape)
    if r < 0.9:
        return py_scalar(rng)
    return np_scalar(rng, _pick(rng, dtypes))


def _axis(rng, ndim, allow_none=True, allow_tuple=True):
    r = rng.random()
    if (allow_none and r < 0.25) or ndim == 0:
        return None if allow_none or ndim == 0 else 0
    if allow_tuple and r < 0.4 and ndim >= 2:
        return {"t": sorted({int(a) for a in rng.integers(-ndim, ndim, 2)}, key=lambda a: a % ndim)}
    if r < 0.45:
        return int(ndim + rng.integers(0, 2))          # out of range: JAX raises
    return int(rng.integers(-ndim, ndim))


# ---------------------------------------------------------------- argument makers

def g_unary(dtypes):
    def g(rng, batch):
        return [array(rng, _pick(rng, dtypes), _shape(rng))], {}
    return g


def g_binary(dtypes, same=False):
    def g(rng, batch):
        s = _shape(rng)
        if same:
            dt = _pick(rng, dtypes)
            if rng.random() < 0.8:
                return [array(rng, dt, s), array(rng, dt, s)], {}
            return [array(rng, dt, s), _operand(rng, dtypes, s)], {}
        return [_operand(rng, dtypes, s), _operand(rng, dtypes, _bshape(rng, s))], {}
    return g


def g_clip(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, NUM[:-2])
    lo = _operand(rng, [dt], _bshape(rng, s)) if rng.random() < 0.8 else None
    hi = _operand(rng, [dt], _bshape(rng, s)) if rng.random() < 0.8 else None
    return [array(rng, dt, s)], {"min": lo, "max": hi}


def g_where(rng, batch):
    s = _shape(rng)
    return [array(rng, "bool", s), _operand(rng, ALL, _bshape(rng, s)),
            _operand(rng, ALL, _bshape(rng, s))], {}


def g_clamp(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, INT + FLOAT)
    return [array(rng, dt, _pick(rng, [(), s])), array(rng, dt, s), array(rng, dt, _pick(rng, [(), s]))], {}


def g_reduce(dtypes, kw=("axis", "keepdims"), dtype_kw=None, where=False, initial=False):
    def g(rng, batch):
        s = _shape(rng)
        dt = _pick(rng, dtypes)
        k = {}
        if "axis" in kw and rng.random() < 0.8:
            k["axis"] = _axis(rng, len(s), allow_tuple="tuple" not in kw)
        if "axis1" in kw:
            k["axis"] = _axis(rng, len(s), allow_tuple=False)
        if "keepdims" in kw and rng.random() < 0.4:
            k["keepdims"] = True
        if dtype_kw and rng.random() < 0.35:
            k["dtype"] = {"d": _pick(rng, dtype_kw)}
        if where and rng.random() < 0.25:
            k["where"] = array(rng, "bool", _bshape(rng, s))
            if initial:
                k["initial"] = float(_pick(rng, [0.0, -1.0, 5.0]))
        elif initial and rng.random() < 0.2:
            k["initial"] = float(_pick(rng, [0.0, -1.0, 5.0]))
        if "ddof" in kw and rng.random() < 0.3:
            k["ddof"] = int(rng.integers(0, 3))
        return [array(rng, dt, s)], k
    return g


def g_cumulative(dtypes, lax=False):
    def g(rng, batch):
        s = _shape(rng, 1)
        if lax:
            k = {"axis": int(rng.integers(0, len(s)))}
            if rng.random() < 0.4:
                k["reverse"] = True
            return [array(rng, _pick(rng, dtypes), s)], k
        k = {}
        if rng.random() < 0.8:
            k["axis"] = _axis(rng, len(s), allow_tuple=False)
        if rng.random() < 0.3:
            k["dtype"] = {"d": _pick(rng, NUM)}
        return [array(rng, _pick(rng, dtypes), s)], k
    return g


def g_sort(rng, batch):
    s = _shape(rng, 1)
    k = {"axis": _axis(rng, len(s), allow_tuple=False)}
    if rng.random() < 0.3:
        k["descending"] = True
    if rng.random() < 0.3:
        k["stable"] = bool(rng.random() < 0.5)
    return [array(rng, _pick(rng, BOOL + INT + FLOAT), s)], k


def g_top_k(rng, batch):
    s = _shape(rng, 1)
    return [array(rng, _pick(rng, INT + FLOAT), s), int(rng.integers(0, s[-1] + 2))], {}


def _index_elem(rng, d, dynamic_ok):
    r = rng.random()
    if r < 0.35:
        return int(rng.integers(-d - 1, d + 1)) if d else 0
    if r < 0.6:
        a = _pick(rng, [None, 0, 1, -1, -2, 5])
        b = _pick(rng, [None, 2, -1, 10, 0])
        c = _pick(rng, [None, None, 2, -1])
        return {"s": [a, b, c]}
    if r < 0.7:
        return None
    if dynamic_ok:
        n = int(rng.integers(0, 4))
        v = rng.integers(-d - 2, d + 2, n) if d else np.zeros(n, int)
        return {"a": "int32", "shape": [n], "hex": v.astype(np.int32).tobytes().hex()}
    return {"s": [None, None, None]}


def _index(rng, shape):
    k = int(rng.integers(1, len(shape) + 1)) if shape else 1
    elems = [_index_elem(rng, shape[i] if i < len(shape) else 0, True) for i in range(k)]
    if rng.random() < 0.15:
        elems.insert(int(rng.integers(0, len(elems) + 1)), {"e": 1})
    return {"t": elems}


def g_getitem(rng, batch):
    s = _shape(rng, 1)
    return [array(rng, _pick(rng, ALL), s), _index(rng, s)], {}


def g_at(rng, batch):
    s = _shape(rng, 1)
    dt = _pick(rng, NUM[:-2] + BOOL)
    method = _pick(rng, ["set", "add", "multiply", "min", "max", "get", "subtract", "divide",
                         "power"])
    k = {"method": method}
    if rng.random() < 0.5:
        k["mode"] = _pick(rng, ["clip", "drop", "fill", "promise_in_bounds"])
    if rng.random() < 0.3:
        k["indices_are_sorted"] = True
    if rng.random() < 0.3:
        k["unique_indices"] = True
    args = [array(rng, dt, s), _index(rng, s)]
    if method != "get":
        vs = _pick(rng, [(), (1,), (2,), (3,), s[-1:]])
        args.append(_operand(rng, [dt, _pick(rng, NUM)], vs))
    return args, k


def g_take(rng, batch):
    s = _shape(rng, 1)
    d = int(np.prod(s)) if rng.random() < 0.5 else s[0]
    n = int(rng.integers(0, 5))
    idx = rng.integers(-d - 2, d + 3, n) if d else rng.integers(-1, 2, n)
    k = {}
    if rng.random() < 0.5:
        k["axis"] = int(rng.integers(-len(s), len(s)))
    if rng.random() < 0.6:
        k["mode"] = _pick(rng, ["clip", "wrap", "fill", "promise_in_bounds"])
    if k.get("mode") == "fill" and rng.random() < 0.5:
        k["fill_value"] = float(_pick(rng, [0.0, -1.0, np.nan]))
    ind = {"a": _pick(rng, ["int32", "int64", "uint8", "int8"]), "shape": [n],
           "hex": idx.astype(np.dtype(_pick(rng, ["int32"]))).tobytes().hex()}
    ind["a"] = "int32"
    return [array(rng, _pick(rng, ALL), s), ind], k


def g_take_along(rng, batch):
    s = _shape(rng, 1)
    axis = int(rng.integers(-len(s), len(s)))
    ishape = list(s)
    ishape[axis] = int(rng.integers(0, 4))
    d = s[axis]
    idx = rng.integers(-d - 1, d + 2, int(np.prod(ishape))) if d else np.zeros(int(np.prod(ishape)), int)
    k = {"axis": axis}
    if rng.random() < 0.5:
        k["mode"] = _pick(rng, ["clip", "fill", "promise_in_bounds"])
    return [array(rng, _pick(rng, NUM), s),
            {"a": "int32", "shape": ishape, "hex": idx.astype(np.int32).tobytes().hex()}], k


def g_reshape(rng, batch):
    s = _shape(rng)
    n = int(np.prod(s))
    cands = [(n,), (-1,), (1, n), (n, 1), (-1, 1), (2, -1), (3, -1), ()]
    return [array(rng, _pick(rng, ALL), s), {"t": list(_pick(rng, cands))}], {}


def g_transpose(rng, batch):
    s = _shape(rng)
    axes = rng.permutation(len(s)).tolist()
    if axes and rng.random() < 0.3:
        axes[0] = axes[0] - len(s)
    return [array(rng, _pick(rng, ALL), s)], ({"axes": {"t": axes}} if rng.random() < 0.7 else {})


def g_seq(rng, batch):
    s = _shape(rng, 1)
    n = int(rng.integers(1, 4))
    dts = [_pick(rng, ALL) for _ in range(n)]
    arrs = []
    for dt in dts:
        sh = list(s)
        if rng.random() < 0.2:
            sh[0] = int(rng.integers(0, 3))
        arrs.append(array(rng, dt, sh))
    return [arrs], {"axis": _axis(rng, len(s), allow_none=True, allow_tuple=False)}


def g_split(rng, batch):
    s = _shape(rng, 1)
    if rng.random() < 0.5:
        parts = int(_pick(rng, [1, 2, 3]))
    else:
        parts = {"t": sorted(int(i) for i in rng.integers(-1, 5, int(rng.integers(1, 3))))}
    return [array(rng, _pick(rng, ALL), s), parts], {"axis": int(rng.integers(-len(s), len(s)))}


def g_astype(rng, batch):
    return [array(rng, _pick(rng, ALL), _shape(rng)), {"d": _pick(rng, ALL)}], {}


def g_round(rng, batch):
    return [array(rng, _pick(rng, NUM), _shape(rng))], (
        {"decimals": int(rng.integers(-2, 3))} if rng.random() < 0.6 else {})


def g_linspace(rng, batch):
    start = _operand(rng, FLOAT + INT, ()) if rng.random() < 0.3 else float(_pick(rng, [0.0, -1.5, 2.0, 1.0]))
    stop = float(_pick(rng, [1.0, 10.0, -3.0, 0.5]))
    k = {"num": int(rng.integers(0, 7))}
    if rng.random() < 0.3:
        k["endpoint"] = False
    if rng.random() < 0.4:
        k["dtype"] = {"d": _pick(rng, NUM)}
    return [start, stop], k


def g_arange(rng, batch):
    start = _pick(rng, [0, 1, -2, 0.5, 3])
    stop = _pick(rng, [5, 7, 2.5, -1, 10])
    step = _pick(rng, [1, 2, 0.5, -1, 3])
    k = {}
    if rng.random() < 0.4:
        k["dtype"] = {"d": _pick(rng, NUM)}
    return [start, stop, step], k


def g_full(rng, batch):
    shape = {"t": list(_shape(rng))}
    fill = _operand(rng, ALL, ())
    k = {}
    if rng.random() < 0.5:
        k["dtype"] = {"d": _pick(rng, ALL)}
    return [shape, fill], k


def g_einsum(rng, batch):
    spec, shapes = _pick(rng, [("ij,jk->ik", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]),
                               ("ij->ji", [(2, 3)]), ("ij,j->i", [(2, 3), (3,)]),
                               ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]), ("ii->i", [(3, 3)]),
                               ("i,j->ij", [(2,), (3,)]), ("ij->", [(2, 0)])])
    dt = _pick(rng, NUM)
    k = {}
    if rng.random() < 0.3:
        k["preferred_element_type"] = {"d": _pick(rng, ["float32", "int32", "float64"])}
    return [spec] + [array(rng, dt if rng.random() < 0.8 else _pick(rng, NUM), s) for s in shapes], k


def g_matmul(rng, batch):
    a, b = _pick(rng, [((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)),
                       ((2, 2, 3), (3, 1)), ((1, 2, 3), (4, 3, 2)), ((2, 0), (0, 3)), ((2, 3), (2, 3))])
    dt = _pick(rng, NUM)
    k = {}
    if rng.random() < 0.2:
        k["preferred_element_type"] = {"d": _pick(rng, ["float32", "int32"])}
    return [array(rng, dt, a), array(rng, dt if rng.random() < 0.8 else _pick(rng, ALL), b)], k


def g_tensordot(rng, batch):
    a, b, axes = _pick(rng, [((2, 3), (3, 4), 1), ((2, 3), (2, 3), 2), ((3,), (3,), 1),
                             ((2, 3), (3, 2), {"t": [[1], [0]]}), ((2, 3), (4,), 0)])
    dt = _pick(rng, NUM)
    return [array(rng, dt, a), array(rng, dt, b)], {"axes": axes}


def g_nn(kw=None):
    def g(rng, batch):
        s = _shape(rng)
        k = {}
        if kw == "axis" and rng.random() < 0.7:
            k["axis"] = _axis(rng, len(s), allow_tuple=True)
        if kw == "approximate" and rng.random() < 0.5:
            k["approximate"] = bool(rng.random() < 0.5)
        if kw == "alpha" and rng.random() < 0.5:
            k["alpha"] = float(_pick(rng, [0.1, 2.0, 0.5]))
        if kw == "negative_slope" and rng.random() < 0.5:
            k["negative_slope"] = float(_pick(rng, [0.1, 2.0]))
        return [array(rng, _pick(rng, FLOAT + (INT[:4] if rng.random() < 0.1 else [])), s)], k
    return g


def g_one_hot(rng, batch):
    s = _shape(rng)
    return [array(rng, _pick(rng, SINT + UINT[:2]), s), int(rng.integers(0, 5))], (
        {"dtype": {"d": _pick(rng, NUM + BOOL)}} if rng.random() < 0.4 else {})


def g_squeeze(rng, batch):
    s = _pick(rng, [(1, 3), (3, 1), (2, 1, 3), (1,), (), (1, 1)])
    k = {}
    if rng.random() < 0.6 and s:
        k["axis"] = int(rng.integers(-len(s), len(s)))
    return [array(rng, _pick(rng, ALL), s)], k


def g_expand(rng, batch):
    s = _shape(rng)
    return [array(rng, _pick(rng, ALL), s), int(rng.integers(-len(s) - 2, len(s) + 2))], {}


def g_roll(rng, batch):
    s = _shape(rng, 1)
    k = {}
    if rng.random() < 0.6:
        k["axis"] = int(rng.integers(-len(s), len(s)))
    return [array(rng, _pick(rng, ALL), s), int(rng.integers(-7, 8))], k


def g_flip(rng, batch):
    s = _shape(rng)
    return [array(rng, _pick(rng, ALL), s)], ({"axis": _axis(rng, len(s))} if rng.random() < 0.6 else {})


def g_repeat(rng, batch):
    s = _shape(rng)
    k = {}
    if rng.random() < 0.6 and s:
        k["axis"] = int(rng.integers(-len(s), len(s)))
    return [array(rng, _pick(rng, ALL), s), int(rng.integers(0, 3))], k


def g_tile(rng, batch):
    s = _shape(rng)
    return [array(rng, _pick(rng, ALL), s), {"t": [int(rng.integers(0, 3)) for _ in range(int(rng.integers(1, 3)))]}], {}


def g_diff(rng, batch):
    s = _shape(rng, 1)
    return [array(rng, _pick(rng, NUM + BOOL), s)], {"n": int(rng.integers(0, 3)), "axis": int(rng.integers(-len(s), len(s)))}


def g_searchsorted(rng, batch):
    a = np.sort(rng.integers(-3, 4, 5)).astype(np.float32)
    k = {}
    if rng.random() < 0.5:
        k["side"] = _pick(rng, ["left", "right"])
    return [{"a": "float32", "shape": [5], "hex": a.tobytes().hex()}, _operand(rng, FLOAT + INT, _shape(rng))], k


def g_nan_to_num(rng, batch):
    k = {}
    if rng.random() < 0.4:
        k["nan"] = float(_pick(rng, [1.0, -5.0]))
    if rng.random() < 0.4:
        k["posinf"] = float(_pick(rng, [9.0, 1e300]))
    return [array(rng, _pick(rng, NUM + BOOL), _shape(rng))], k


def g_isclose(rng, batch):
    s = _shape(rng)
    return [_operand(rng, NUM, s), _operand(rng, NUM, _bshape(rng, s))], (
        {"equal_nan": True} if rng.random() < 0.4 else {})


def g_logsumexp(rng, batch):
    s = _shape(rng)
    k = {}
    if rng.random() < 0.7:
        k["axis"] = _axis(rng, len(s))
    if rng.random() < 0.3:
        k["keepdims"] = True
    if rng.random() < 0.2:
        k["b"] = array(rng, "float32", _bshape(rng, s))
    if rng.random() < 0.2:
        k["return_sign"] = True
    return [array(rng, _pick(rng, FLOAT + INT[:3]), s)], k


def g_power_int(rng, batch):
    return [array(rng, _pick(rng, NUM), _shape(rng)), int(rng.integers(-3, 5))], {}


def g_bitcast(rng, batch):
    return [array(rng, _pick(rng, NUM), (2, 4)), {"d": _pick(rng, ["int8", "uint8", "float32", "int32", "uint16", "int64", "float16"])}], {}


def g_convert(rng, batch):
    return [array(rng, _pick(rng, ALL), _shape(rng)), {"d": _pick(rng, ALL)}], {}


def g_shift(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, INT)
    b = rng.integers(-2, 70, int(np.prod(s))).astype(np_dtype(dt)).reshape(s)
    return [array(rng, dt, s), {"a": dt, "shape": list(s), "hex": b.tobytes().hex()}], {}


def g_gcd(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, INT)
    x, y = (rng.integers(-9 if dt in SINT else 0, 30, int(np.prod(s))).astype(np_dtype(dt)).reshape(s)
            for _ in range(2))
    return [{"a": dt, "shape": list(s), "hex": x.tobytes().hex()},
            {"a": dt, "shape": list(s), "hex": y.tobytes().hex()}], {}


def g_jnp_shift(rng, batch):
    s = _shape(rng)
    dt = _pick(rng, INT + BOOL)
    b = rng.integers(-2, 70, int(np.prod(s))).astype(np_dtype(dt)).reshape(s)
    second = {"a": dt, "shape": list(s), "hex": b.tobytes().hex()} if rng.random() < 0.7 else py_scalar(rng, "int")
    return [array(rng, dt, s), second], {}


FLT = FLOAT
UN_ANY = [("jnp.abs", ALL), ("jnp.negative", NUM), ("jnp.sign", NUM), ("jnp.square", NUM),
          ("jnp.positive", NUM), ("jnp.conj", ALL), ("jnp.real", ALL), ("jnp.imag", ALL),
          ("jnp.isnan", ALL), ("jnp.isinf", ALL), ("jnp.isfinite", ALL), ("jnp.logical_not", ALL),
          ("jnp.floor", NUM + BOOL), ("jnp.ceil", NUM + BOOL), ("jnp.trunc", NUM + BOOL),
          ("jnp.rint", NUM + BOOL), ("jnp.fix", NUM + BOOL), ("jnp.signbit", INT + FLOAT + BOOL),
          ("jnp.invert", INT + BOOL), ("jnp.bitwise_not", INT + BOOL), ("jnp.reciprocal", NUM),
          ("jnp.angle", ALL), ("jnp.fabs", INT + FLOAT + BOOL), ("jnp.iscomplex", ALL),
          ("jnp.isreal", ALL), ("jnp.bitwise_count", INT + BOOL), ("jnp.spacing", FLOAT),
          ("lax.population_count", INT), ("lax.clz", INT), ("lax.neg", NUM), ("lax.sign", NUM),
          ("lax.abs", SINT + INEXACT), ("lax.is_finite", FLOAT), ("lax.bitwise_not", INT + BOOL),
          ("jnp.cbrt", INT + FLOAT + BOOL), ("jnp.sinc", NUM), ("jnp.i0", FLOAT + INT),
          ("jnp.deg2rad", INT + FLOAT), ("jnp.rad2deg", INT + FLOAT), ("jnp.ravel", ALL),
          ("jnp.argmax", ALL[:-2]), ("jnp.argmin", ALL[:-2]), ("jnp.count_nonzero", ALL),
          ("jnp.sort_complex", NUM), ("jnp.ptp", NUM), ("jnp.isneginf", INT + FLOAT),
          ("jnp.isposinf", INT + FLOAT), ("jnp.frexp", FLOAT + INT), ("jnp.modf", FLOAT + INT)]
UN_FLOAT = ["sqrt", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
            "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"]
LAX_FLOAT = ["lax.exp", "lax.log", "lax.sqrt", "lax.rsqrt", "lax.logistic", "lax.erf",
             "lax.erfc", "lax.erf_inv", "lax.lgamma", "lax.digamma", "lax.tanh", "lax.expm1",
             "lax.log1p", "lax.cbrt", "lax.floor", "lax.ceil", "lax.round", "lax.exp2", "lax.tan",
             "lax.atan", "lax.acos", "lax.asin", "lax.sinh", "lax.cosh", "lax.asinh", "lax.acosh",
             "lax.atanh", "lax.sin", "lax.cos", "lax.square", "lax.integer_pow"]
SPECIAL = ["special.erf", "special.erfc", "special.erfinv", "special.gammaln", "special.digamma",
           "special.expit", "special.logit", "special.ndtr", "special.ndtri", "special.log_ndtr",
           "special.i0e", "special.i1e", "special.gamma", "special.entr", "special.i0",
           "special.i1", "special.sinc", "special.spence", "special.exp1", "special.expi",
           "special.gammasgn", "special.erfcx"]
BIN_ANY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
           "mod", "fmod", "power", "float_power", "maximum", "minimum", "fmax", "fmin",
           "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "heaviside", "divmod"]
BIN_REAL = ["arctan2", "hypot", "copysign", "nextafter", "logaddexp", "logaddexp2", "ldexp"]
BIN_INT = ["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"]
LAX_BIN = [("lax.add", NUM), ("lax.sub", NUM), ("lax.mul", NUM), ("lax.div", NUM),
           ("lax.rem", INT + FLOAT), ("lax.max", ALL), ("lax.min", ALL), ("lax.pow", INEXACT),
           ("lax.atan2", FLOAT), ("lax.nextafter", FLOAT), ("lax.bitwise_and", INT + BOOL),
           ("lax.bitwise_or", INT + BOOL), ("lax.eq", ALL), ("lax.lt", ALL), ("lax.ne", ALL),
           ("lax.ge", ALL), ("lax.complex", ["float32", "float64"])]
SPECIAL_BIN = [("special.xlogy", FLOAT + INT), ("special.xlog1py", FLOAT + INT),
               ("special.betaln", FLOAT), ("special.gammainc", FLOAT),
               ("special.gammaincc", FLOAT), ("special.polygamma", FLOAT + INT),
               ("special.zeta", FLOAT), ("special.rel_entr", FLOAT), ("special.kl_div", FLOAT)]
REDUCE = [("sum", NUM + BOOL, NUM, True, True), ("prod", NUM + BOOL, NUM, True, True),
          ("max", NUM[:-2] + BOOL, None, True, True), ("min", NUM[:-2] + BOOL, None, True, True),
          ("mean", NUM + BOOL, INEXACT, True, False), ("any", ALL, None, True, False),
          ("all", ALL, None, True, False), ("nansum", NUM, NUM, True, True),
          ("nanprod", NUM, NUM, True, True), ("nanmax", INT + FLOAT, None, True, True),
          ("nanmin", INT + FLOAT, None, True, True), ("nanmean", INT + INEXACT, INEXACT, True, False),
          ("amax", INT + FLOAT, None, True, True)]
REDUCE_DDOF = ["var", "std", "nanvar", "nanstd"]

# name -> (argument maker, differentiable output)
TABLE: dict = {}
for _n, _d in UN_ANY:
    TABLE[_n] = (g_unary(_d), False)
for _n in UN_FLOAT:
    TABLE["jnp." + _n] = (g_unary(ALL), True)
for _n in LAX_FLOAT:
    TABLE[_n] = (g_unary(INEXACT if "erf" not in _n and "gamma" not in _n else FLOAT), True)
TABLE["lax.integer_pow"] = (lambda rng, b: ([array(rng, _pick(rng, NUM), _shape(rng)),
                                               int(rng.integers(-3, 4))], {}), True)
for _n in SPECIAL:
    TABLE[_n] = (g_unary(FLOAT + INT + BOOL), True)
for _n in BIN_ANY:
    TABLE["jnp." + _n] = (g_binary(ALL), _n in ("divide", "true_divide", "power", "float_power"))
for _n in BIN_REAL:
    TABLE["jnp." + _n] = (g_binary(BOOL + INT + FLOAT), _n not in ("nextafter", "ldexp"))
for _n in BIN_INT:
    TABLE["jnp." + _n] = (g_binary(BOOL + INT), False)
for _n, _d in LAX_BIN:
    TABLE[_n] = (g_binary(_d, same=True), False)
for _n, _d in SPECIAL_BIN:
    TABLE[_n] = (g_binary(_d), True)
for _n, _d, _dk, _w, _i in REDUCE:
    TABLE["jnp." + _n] = (g_reduce(_d, dtype_kw=_dk, where=_w, initial=_i), _n in ("sum", "mean", "prod"))
for _n in REDUCE_DDOF:
    TABLE["jnp." + _n] = (g_reduce(INT + INEXACT, kw=("axis", "keepdims", "ddof"),
                                   dtype_kw=INEXACT, where=True), True)
for _n in ["argmax", "argmin"]:
    TABLE[f"jnp.{_n}_axis"] = (g_reduce(INT + FLOAT + BOOL, kw=("axis1", "keepdims")), False)
# gcd / lcm without the int minimum: JAX's Euclid loop never ends there (its abs overflows)
TABLE["jnp.gcd"] = TABLE["jnp.lcm"] = (g_gcd, False)
TABLE.update({
    "jnp.left_shift": (g_jnp_shift, False), "jnp.right_shift": (g_jnp_shift, False),
    "lax.shift_left": (g_shift, False), "lax.shift_right_logical": (g_shift, False),
    "lax.shift_right_arithmetic": (g_shift, False),
    "jnp.clip": (g_clip, True), "jnp.where": (g_where, True), "lax.clamp": (g_clamp, False),
    "jnp.cumsum": (g_cumulative(NUM + BOOL), True), "jnp.cumprod": (g_cumulative(NUM + BOOL), False),
    "jnp.nancumsum": (g_cumulative(NUM), False), "jnp.cumulative_sum": (g_cumulative(NUM + BOOL), False),
    "lax.cumsum": (g_cumulative(NUM, lax=True), True), "lax.cummax": (g_cumulative(INT + FLOAT, lax=True), True),
    "lax.cummin": (g_cumulative(INT + FLOAT, lax=True), False),
    "lax.cumlogsumexp": (g_cumulative(FLOAT, lax=True), True),
    "lax.cumprod": (g_cumulative(NUM, lax=True), False),
    "jnp.sort": (g_sort, True), "jnp.argsort": (g_sort, False), "lax.top_k": (g_top_k, False),
    "getitem": (g_getitem, True), "at": (g_at, False), "jnp.take": (g_take, True),
    "jnp.take_along_axis": (g_take_along, True), "jnp.reshape": (g_reshape, True),
    "jnp.transpose": (g_transpose, True), "jnp.concatenate": (g_seq, True),
    "jnp.stack": (g_seq, True), "jnp.split": (g_split, False), "jnp.array_split": (g_split, False),
    "astype": (g_astype, False), "jnp.round": (g_round, True), "jnp.around": (g_round, False),
    "jnp.linspace": (g_linspace, False), "jnp.arange": (g_arange, False), "jnp.full": (g_full, False),
    "jnp.einsum": (g_einsum, False), "jnp.matmul": (g_matmul, True), "jnp.dot": (g_matmul, True),
    "jnp.vdot": (g_matmul, False), "jnp.inner": (g_matmul, False), "jnp.outer": (g_matmul, False),
    "jnp.tensordot": (g_tensordot, True),
    "nn.relu": (g_nn(), True), "nn.relu6": (g_nn(), True), "nn.sigmoid": (g_nn(), True),
    "nn.softplus": (g_nn(), True), "nn.silu": (g_nn(), True), "nn.gelu": (g_nn("approximate"), True),
    "nn.elu": (g_nn("alpha"), True), "nn.leaky_relu": (g_nn("negative_slope"), True),
    "nn.log_sigmoid": (g_nn(), True), "nn.hard_tanh": (g_nn(), True), "nn.celu": (g_nn("alpha"), True),
    "nn.selu": (g_nn(), True), "nn.softmax": (g_nn("axis"), True), "nn.log_softmax": (g_nn("axis"), True),
    "nn.logsumexp": (g_logsumexp, True), "special.logsumexp": (g_logsumexp, True),
    "nn.standardize": (g_nn("axis"), True), "nn.one_hot": (g_one_hot, False),
    "nn.hard_sigmoid": (g_nn(), True), "nn.hard_silu": (g_nn(), True), "nn.mish": (g_nn(), True),
    "nn.squareplus": (g_nn(), True), "nn.sparse_plus": (g_nn(), True),
    "jnp.squeeze": (g_squeeze, True), "jnp.expand_dims": (g_expand, True), "jnp.roll": (g_roll, True),
    "jnp.flip": (g_flip, True), "jnp.repeat": (g_repeat, True), "jnp.tile": (g_tile, True),
    "jnp.diff": (g_diff, False), "jnp.searchsorted": (g_searchsorted, False),
    "jnp.nan_to_num": (g_nan_to_num, False), "jnp.isclose": (g_isclose, False),
    "jnp.power_int": (g_power_int, True), "lax.bitcast_convert_type": (g_bitcast, False),
    "lax.convert_element_type": (g_convert, False),
})
NAMES = sorted(TABLE)


def generate(seed):
    """The call drawn from `seed` (deterministic)."""
    rng = np.random.default_rng(seed)
    table = TABLE
    if seed >= 40000:   # the wider tables (api_gen_more, api_gen_names); older seeds draw
        from .api_gen_more import WIDE   # as recorded
        from .api_gen_names import FIRST_NAMES, NAMES
        table = {**TABLE, **WIDE, **(NAMES if seed >= FIRST_NAMES else {})}
        from .api_gen_stats import FIRST_STATS, STATS
        if seed >= FIRST_STATS:
            table.update(STATS)
    fn = sorted(table)[rng.integers(len(table))]
    maker, diff = table[fn]
    modes = MODES if diff else MODES[:3]
    mode = modes[rng.integers(len(modes))]
    args, kw = maker(rng, mode == "vmap")
    call = {"seed": int(seed), "fn": fn, "args": args, "kw": kw, "mode": mode,
            "x64": bool(rng.random() < 0.5)}
    if mode == "vmap" and fn in ("jnp.gcd", "jnp.lcm"):
        call["mode"] = "jit"   # (a batch row would bring the int minimum back)
    elif mode == "vmap":
        call["args"] = [_batched(rng, a) for a in args]
    if mode == "grad":
        first = args[0] if args else None
        if not (isinstance(first, dict) and first.get("a") in FLOAT):
            call["mode"] = "jit"
        elif fn == "special.spence":
            # astjax's derivative is the true log(x) / (1 - x) by design, where JAX 0.10.2
            # differentiates its rational approximation (NaN on (1, 2], 0 at 0 and 1;
            # tests/test_special_more.py pins it): no grad draw (other seeds unchanged)
            call["mode"] = "jit"
    return call


def _batched(rng, arg):
    """An array ARG with a leading batch axis of 2 (the first row the original)."""
    if not (isinstance(arg, dict) and "a" in arg):
        return arg
    other = array(rng, arg["a"], arg["shape"])
    if arg["a"] == "int32" and "hex" in arg and len(arg["hex"]) and rng.random() < 0.5:
        other = dict(arg)   # index arrays: keep values in range patterns
    return {"a": arg["a"], "shape": [2] + list(arg["shape"]), "hex": arg["hex"] + other["hex"]}


def _render_arg(arg):
    if isinstance(arg, list):
        return "[" + ", ".join(_render_arg(a) for a in arg) + "]"
    if not isinstance(arg, dict):
        return repr(arg)
    if "a" in arg:
        v = decode(arg)
        return f"np.array({v.tolist()!r}, dtype={arg['a']!r})"
    if "np" in arg:
        return f"np.{arg['np'] if arg['np'] != 'bfloat16' else 'float32'}({decode(arg).item()!r})"
    if "t" in arg:
        return "(" + "".join(_render_arg(a) + ", " for a in arg["t"]) + ")"
    if "s" in arg:
        return "slice(%r, %r, %r)" % tuple(arg["s"])
    if "d" in arg:
        return f"jnp.{arg['d']}"
    return repr(decode(arg))


def render(call):
    """A runnable repro of `call` (for either library, imported as `jax` / `jnp`)."""
    args = ", ".join(_render_arg(a) for a in call["args"])
    kw = "".join(f", {k}={_render_arg(v)}" for k, v in call["kw"].items())
    return (f"jax.config.update('jax_enable_x64', {call['x64']})  # mode {call['mode']}\n"
            f"{call['fn']}({args}{kw})").replace("(, ", "(")
