"""Cases for what JAX computes and astjax used to refuse (issue 13): every `jnp.pad` mode
and its options, `jnp.unique(axis=)`, `jnp.intersect1d(return_indices=True)`,
`jnp.polyfit(full=, cov=)`, integer `jnp.linspace`, with a recorder of JAX's values
(see README.md): `/work/jaxref/bin/python tests/oracle/record_gaps.py` writes gaps.json.

Each case is `(name, fn, args)`: `fn(jnp, *args)` with NumPy array arguments, so a test
can call it eagerly or under `jit` with the arguments staged."""
import json
import sys
from pathlib import Path

import numpy as np

X2 = np.arange(1, 7, dtype=np.float32).reshape(2, 3) ** 1.5
I2 = np.array([[3, 1, 4], [1, 5, 9]], np.int32)
V = np.array([2.0, -1.0, 4.0, 0.5, 3.0], np.float32)
IV = np.array([1, 5, 2, 8], np.int32)
M = np.array([[1, 2, 1], [0, 5, 1], [1, 2, 1], [0, 3, 2], [0, 5, 1]], np.int32)
F = np.array([[1.0, np.nan], [1.0, np.nan], [0.0, 2.0], [0.0, 2.0], [-1.0, 0.5]], np.float32)
T3 = np.array([[[1, 0], [1, 0]], [[0, 2], [0, 1]], [[1, 0], [1, 0]]], np.int32)
A1 = np.array([5, 1, 3, 3, 7, 1], np.int32)
B1 = np.array([3, 9, 1, 1, 8], np.int32)
AF = np.array([[4.0, 2.0], [9.0, 2.0]], np.float32)
BF = np.array([9.0, 4.0, 1.0], np.float32)
PX = np.linspace(0, 2, 7).astype(np.float32)
PY = (PX ** 2 - 3 * PX + np.sin(5 * PX)).astype(np.float32)
PY2 = np.stack([PY, np.cos(PX)], 1).astype(np.float32)
PW = np.linspace(1, 2, 7).astype(np.float32)


def _ends(row, width, axis, kwargs):
    """A callable pad mode: the padding becomes -1 before and the row's sum after."""
    lo, hi = width
    row = row.at[:lo].set(kwargs.get("before", -1))
    return row.at[row.shape[0] - hi:].set(row[lo:row.shape[0] - hi].sum())


PAD_MODES = [
    ("constant", {}), ("constant", {"constant_values": 7}),
    ("constant", {"constant_values": (7, 9)}), ("constant", {"constant_values": ((1, 2), (3, 4))}),
    ("edge", {}), ("wrap", {}), ("reflect", {}), ("symmetric", {}),
    ("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"}),
    ("linear_ramp", {}), ("linear_ramp", {"end_values": (-3, 4)}),
    ("linear_ramp", {"end_values": ((-3, 4), (10, 0))}),
    ("maximum", {}), ("minimum", {}), ("mean", {}), ("median", {}),
    ("maximum", {"stat_length": 2}), ("mean", {"stat_length": ((1, 2), (2, 1))}),
    ("median", {"stat_length": (1, 3)}), ("minimum", {"stat_length": 5}), ("empty", {}),
]

CASES = []
# integer arrays where the mode computes new values (rounded as JAX rounds them)
INT_PAD = {("constant", "constant_values"), ("reflect", "reflect_type"), ("linear_ramp", ""),
           ("linear_ramp", "end_values"), ("mean", ""), ("median", "stat_length"),
           ("symmetric", "reflect_type")}
for _mode, _kw in PAD_MODES:   # each mode on floats with per-axis widths, ints with one
    _int = (_mode, next(iter(_kw), "")) in INT_PAD
    for _dn, _arr, _pw in (("f", X2, ((1, 2), (4, 3))), ("i", I2, 5))[:1 + _int]:
        _tag = "_".join(f"{k}-" + ".".join(map(str, np.ravel(v))) for k, v in _kw.items())
        CASES.append((f"pad_{_mode}_{_tag}_{_dn}",
                      lambda j, a, m=_mode, kw=_kw, pw=_pw: j.pad(a, pw, m, **kw), (_arr,)))
CASES += [
    ("pad_1d_reflect_long", lambda j, a: j.pad(a, (11, 7), "reflect"), (V,)),
    ("pad_1d_symmetric_odd_long", lambda j, a: j.pad(a, (9, 12), "symmetric",
                                                     reflect_type="odd"), (V,)),
    ("pad_1d_wrap_long", lambda j, a: j.pad(a, (12, 6), "wrap"), (IV,)),
    ("pad_callable", lambda j, a: j.pad(a, 2, _ends), (IV,)),
    ("pad_callable_kw", lambda j, a: j.pad(a, ((1, 0), (2, 1)), _ends, before=-5), (I2,)),
    ("pad_scalar", lambda j, a: j.pad(a, 3, "reflect"), (np.float32(2.5),)),
    ("pad_zero_width", lambda j, a: j.pad(a, 0, "wrap"), (I2,)),
    ("linspace_int", lambda j: j.linspace(-3, 1, 7, endpoint=False, dtype=np.int32), ()),
    ("linspace_int_end", lambda j: j.linspace(-7, 5, 6, dtype=np.int32), ()),
]
UNIQUE = [
    ("rows", dict(axis=0), M), ("cols", dict(axis=1), M), ("neg_axis", dict(axis=-1), T3),
    ("mid_axis", dict(axis=1), T3),
    ("rows_all", dict(axis=0, return_index=True, return_inverse=True, return_counts=True), M),
    ("cols_all", dict(axis=1, return_index=True, return_inverse=True, return_counts=True), M),
    ("nan_rows", dict(axis=0, return_counts=True), F),
    ("nan_rows_distinct", dict(axis=0, return_counts=True, equal_nan=False), F),
]
SIZED_UNIQUE = [
    ("rows_size", dict(axis=0, return_index=True, return_inverse=True, return_counts=True,
                       size=5), M),
    ("rows_size_cut", dict(axis=0, return_index=True, return_inverse=True, return_counts=True,
                           size=2), M),
    ("rows_fill", dict(axis=0, size=5, fill_value=-1), M),
    ("axis2_fill", dict(axis=2, size=3, fill_value=7, return_counts=True), T3),
    ("flat_size", dict(return_index=True, return_inverse=True, return_counts=True, size=6), M),
    ("nan_rows_size", dict(axis=0, size=4, return_index=True), F),
]
for _n, _kw, _arr in UNIQUE + SIZED_UNIQUE:
    CASES.append((f"unique_{_n}", lambda j, a, kw=_kw: j.unique(a, **kw), (_arr,)))
INTERSECT = [
    ("plain", dict(), (A1, B1)),
    ("size", dict(size=4), (A1, B1)), ("size_fill", dict(size=4, fill_value=0), (A1, B1)),
    ("size_cut", dict(size=1), (A1, B1)),
    ("assume_unique", dict(assume_unique=True), (np.array([4, 2, 9]), np.array([9, 4, 1]))),
    ("assume_unique_size", dict(assume_unique=True, size=3),
     (np.array([4, 2, 9], np.int32), np.array([9, 4, 1], np.int32))),
    ("promote_2d", dict(), (AF, BF.astype(np.int32))),
    ("empty_result", dict(size=2, fill_value=-1), (A1, np.array([0, 2], np.int32))),
]
for _n, _kw, _args in INTERSECT:
    CASES.append((f"intersect1d_{_n}", lambda j, a, b, kw=_kw: j.intersect1d(
        a, b, return_indices=True, **kw), _args))
POLYFIT = [
    ("plain", dict(), PY, 2), ("full", dict(full=True), PY, 2),
    ("full_2d", dict(full=True), PY2, 3), ("full_rcond", dict(full=True, rcond=0.1), PY, 2),
    ("cov", dict(cov=True), PY, 2), ("cov_2d", dict(cov=True), PY2, 3),
    ("cov_unscaled", dict(cov="unscaled"), PY, 2),
    ("cov_unscaled_2d", dict(cov="unscaled"), PY2, 1),
    ("w_cov", dict(w=PW, cov=True), PY, 2), ("w_full_2d", dict(w=PW, full=True), PY2, 2),
]
POLYFIT = [p for p in POLYFIT if p[0] not in ("plain", "cov_unscaled", "full_rcond")] \
    + [("full_rcond_2d", dict(full=True, rcond=0.1), PY2, 2)]
for _n, _kw, _y, _deg in POLYFIT:
    CASES.append((f"polyfit_{_n}", lambda j, x, y, kw=_kw, d=_deg: j.polyfit(x, y, d, **kw),
                  (PX, _y)))

# keyword arguments JAX accepts that astjax used to reject (the signature sweep)
KW = np.array([[2.0, 0.5, 1.0], [1.0, 3.0, -1.0], [0.0, 1.0, 4.0]], np.float32)
CASES += [
    ("take_positional_out_mode", lambda j, a: j.take(a, np.array([0, 7, -1]), 0, None, "clip"),
     (V,)),
    ("take_clip_negative", lambda j, a: j.take(a, np.array([-1, -9, 2]), mode="clip"), (V,)),
    ("take_promises", lambda j, a: j.take(a, np.array([0, 2]), unique_indices=True,
                                          indices_are_sorted=True), (V,)),
    ("take_along_axis_default_axis", lambda j, a: j.take_along_axis(
        a, np.array([[2, 0, 1], [1, 1, 0], [0, 2, 2]]), mode="clip"), (KW,)),
    ("take_along_axis_no_wrap", lambda j, a: j.take_along_axis(
        a, np.array([-1, 2, 0]), 0, wrap_negative_indices=False), (V[:3],)),
    ("digitize_method", lambda j, a: j.digitize(a, np.array([0.0, 1.0, 2.5]), method="sort"),
     (V,)),
    ("setxor1d_fill", lambda j, a, b: j.setxor1d(a, b, size=7, fill_value=-9), (A1, B1)),
    ("inner_preferred", lambda j, a: j.inner(a, a, preferred_element_type=np.float32),
     (I2,)),
    ("inner_preferred_scalar", lambda j, a: j.inner(a, np.int32(2),
                                                   preferred_element_type=np.float32), (I2,)),
    ("vdot_preferred", lambda j, a: j.vdot(a, a, preferred_element_type=np.float32), (I2,)),
    ("hsplit_keyword", lambda j, a: tuple(j.hsplit(a, indices_or_sections=[1])), (KW,)),
    ("cov_dtype", lambda j, a: j.cov(a, dtype=np.complex64), (KW,)),
    ("corrcoef_dtype", lambda j, a: j.corrcoef(a, dtype=np.float32), (I2,)),
]

# value-dependent output lengths: these run eagerly only (JAX needs size= under jit)
EAGER_ONLY = {f"unique_{n}" for n, _, _ in UNIQUE} | {
    "intersect1d_plain", "intersect1d_assume_unique", "intersect1d_promote_2d"}

ERRORS = [
    ("pad_mode", lambda j: j.pad(I2, 1, "nope")),
    ("pad_kwarg", lambda j: j.pad(I2, 1, "edge", constant_values=1)),
    ("pad_stat_zero", lambda j: j.pad(I2, 1, "mean", stat_length=0)),
    ("pad_empty_axis", lambda j: j.pad(np.zeros((0, 2), np.float32), 1, "wrap")),
    ("pad_width_float", lambda j: j.pad(I2, 1.5)),
    ("pad_width_neg", lambda j: j.pad(I2, -1)),
    ("pad_width_shape", lambda j: j.pad(I2, ((1, 2, 3),))),
    ("pad_constant_shape", lambda j: j.pad(I2, 1, constant_values=(1, 2, 3))),
    ("unique_empty_size", lambda j: j.unique(np.zeros((0, 2), np.int32), axis=0, size=2)),
    ("unique_bad_axis", lambda j: j.unique(M, axis=2)),
    ("polyfit_deg", lambda j: j.polyfit(PX, PY, -1)),
    ("polyfit_x2d", lambda j: j.polyfit(PY2, PY2, 1)),
    ("polyfit_len", lambda j: j.polyfit(PX, PY[:3], 1)),
    ("polyfit_w", lambda j: j.polyfit(PX, PY, 1, w=PW[:2])),
    ("polyfit_cov_few", lambda j: j.polyfit(PX[:3], PY[:3], 2, cov=True)),
    ("cov_int_dtype", lambda j: j.cov(KW, dtype=np.int32)),
    ("take_raise", lambda j: j.take(V, np.array([0]), mode="raise")),
    ("take_mode", lambda j: j.take(V, np.array([0]), mode="nope")),
    ("take_out", lambda j: j.take(V, np.array([0]), out=np.zeros(1, np.float32))),
    ("sqrtm_blocked", lambda j: _scipy_linalg(j).sqrtm(np.eye(2, dtype=np.float32), 2)),
]


def _scipy_linalg(jnp_module):
    """`jax.scipy.linalg` or `astjax.scipy.linalg`, beside the given numpy module."""
    import importlib
    return importlib.import_module(jnp_module.__name__.replace("numpy", "scipy.linalg"))


def _floats(a):
    return [None if np.isnan(t) else t for t in a.astype(np.float64).ravel().tolist()]


def _enc(v):
    a = np.asarray(v)
    out = {"dtype": str(a.dtype), "weak": bool(getattr(v, "weak_type", False)),
           "shape": list(a.shape), "values": _floats(np.real(a))}
    if np.iscomplexobj(a):
        out["imag"] = _floats(np.imag(a))
    return out


def record(path):
    import jax.numpy as jnp
    out = {"values": {}, "errors": {}}
    for name, fn, args in CASES:
        r = fn(jnp, *args)
        out["values"][name] = [_enc(v) for v in (r if isinstance(r, tuple) else (r,))]
    for name, fn in ERRORS:
        try:
            fn(jnp)
            out["errors"][name] = None
        except Exception as e:  # noqa: BLE001  (the class is what is recorded)
            out["errors"][name] = [c.__name__ for c in type(e).__mro__
                                   if c.__module__ == "builtins"][0]
    Path(path).write_text(json.dumps(out, indent=0))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("gaps.json"))
