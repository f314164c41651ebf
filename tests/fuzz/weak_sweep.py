"""Dtype, weak type and bits of every `jnp` function against JAX 0.10.2, in one process:

    nice -n 5 .jaxenv/bin/python tests/fuzz/weak_sweep.py [--only NAME,...] [-v]

Each public function of `jax.numpy` is called with one and with two operands of one
kind: (a) a Python float or int, (b) a weak 0-d value staged under `jit` (a Python-scalar
argument), (c) a weak 3x3 array (`lax.full`), (d) 3x3 int8 / bfloat16 / float16 /
complex64 arrays, (e) a NumPy scalar and a 0-d float16 array; then the keyword forms
`dtype=` (creation and reduction functions) and `where=` (reductions) on one operand.
A call JAX rejects is skipped; otherwise astjax's result must have JAX's dtype, weak type
and bits (NaNs equal), or raise JAX's class of error. Prints the count of calls compared
and every disagreement, grouped by kind; the differences in KNOWN (with their reasons)
are listed apart."""
from __future__ import annotations

import argparse
import inspect
import os
import sys
import warnings

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")

# functions whose operands are not arrays, or that only print, read files or build
# dtypes: nothing to compare
SKIP = {"load", "save", "savez", "fromfile", "fromstring", "frombuffer", "fromiter",
        "printoptions", "set_printoptions", "get_printoptions", "dtype", "iinfo", "finfo",
        "result_type", "promote_types", "can_cast", "issubdtype", "isdtype", "from_dlpack",
        "ufunc", "frompyfunc", "vectorize", "piecewise", "fromfunction", "einsum_path",
        "apply_along_axis", "apply_over_axes", "array_repr", "array_str", "broadcast_shapes",
        "mask_indices", "unravel_index", "ravel_multi_index", "indices", "tri", "eye",
        "identity", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace",
        "geomspace", "diag_indices", "tril_indices", "triu_indices", "ix_", "setdiff1d",
        "show_config", "__array_namespace_info__", "isscalar", "ndim", "shape", "size"}


# (kind or form, function) -> why astjax differs from JAX there (reported apart, not
# counted as differences)
KNOWN = {
    ("dtype=complex64", "var"): "eager only, 1 ulp: JAX's eager var passes `correction` to "
    "its jitted _var as a run-time value, so XLA divides by N - correction; astjax's ddof "
    "is static, so XLA folds the division into a multiply by 1/N (as JAX's own result "
    "under an outer jit)",
}


def _kinds():
    base = (np.arange(9).reshape(3, 3) % 5 + 1).astype(np.float64) / 4
    return {
        "pyscalar": ("scalar", 0.5),
        "jit-weak": ("jit", 0.5),
        "weak-2d": ("weak", base),   # (its shape: lax.full, JAX has no weak array of varied values)
        "int8": ("array", (np.arange(9).reshape(3, 3) % 5 + 1).astype(np.int8)),
        "bfloat16": ("array", base.astype("bfloat16")),
        "float16": ("array", base.astype(np.float16)),
        "complex64": ("array", (base + 0.25j * base[::-1]).astype(np.complex64)),
        "pyint": ("scalar", 3),
        "npscalar": ("scalar", np.float32(0.5)),     # (a NumPy scalar: strong, not weak)
        "0d-float16": ("array", np.float16(0.5)),
    }


def _forms():
    """Keyword forms tried on the functions that take them (one operand, a 3x3 float32
    array, or a Python scalar): `dtype=` of a creation / reduction function, and `where=`
    of a reduction."""
    arr = (np.arange(9).reshape(3, 3) % 5 + 1).astype(np.float32) / 4
    mask = np.arange(9).reshape(3, 3) % 2 == 0
    return {
        "dtype=float16": ("dtype", np.float16, arr),
        "dtype=int32": ("dtype", np.int32, arr),
        "dtype=complex64": ("dtype", np.complex64, arr),
        "pyscalar,dtype=float16": ("dtype", np.float16, 2.5),
        "where=mask": ("where", mask, arr),
        "where=mask,weak": ("where", mask, "weak"),
    }


def _call_form(lib, name, key, kw, value):
    f = getattr(lib.numpy, name)
    if isinstance(value, str):
        x = lib.lax.full((3, 3), 0.5)
    else:
        x = value if np.ndim(value) == 0 else lib.numpy.asarray(value)
    if key == "where":
        return f(x, where=lib.numpy.asarray(kw))
    return f(x, **{key: kw})


def _takes(jax, name, key):
    try:
        return key in inspect.signature(getattr(jax.numpy, name)).parameters
    except (TypeError, ValueError):
        return False


def _call(lib, name, how, value, arity):
    jnp, lax = lib.numpy, lib.lax
    f = getattr(jnp, name)
    if how == "scalar":
        return f(*[value] * arity)
    if how == "jit":
        return lib.jit(lambda *a: f(*a))(*[value] * arity)
    if how == "weak":
        return f(*[lax.full(value.shape, 0.5)] * arity)
    return f(*[jnp.asarray(value)] * arity)


def _outcome(lib, r):
    leaves = lib.tree_util.tree_leaves(r)
    out = []
    for x in leaves:
        if not hasattr(x, "dtype"):
            out.append(("py", type(x).__name__, repr(x)))
            continue
        a = np.asarray(x)
        out.append((str(a.dtype), bool(getattr(x, "weak_type", False)), a.shape,
                    a.tobytes()))
    return out


def _run(lib, name, how, value, arity):
    return _run_call(lib, lambda: _call(lib, name, how, value, arity))


def _run_call(lib, thunk):
    try:
        return "ok", _outcome(lib, thunk())
    except Exception as e:  # noqa: BLE001 -- the outcome is the error's class
        return "err", e


def _diff(j, a):
    """What differs between JAX's outcome `j` and astjax's `a` (None: they agree)."""
    if j[0] == "err":
        return None
    if a[0] == "err":
        return f"astjax raises {type(a[1]).__name__}: {str(a[1])[:80]!r}"
    if len(j[1]) != len(a[1]):
        return f"{len(a[1])} leaves, JAX {len(j[1])}"
    for lj, la in zip(j[1], a[1]):
        if lj[0] != la[0]:
            return f"dtype {la[0]}, JAX {lj[0]}"
        if lj[0] == "py":
            if lj != la:
                return f"{la}, JAX {lj}"
            continue
        if lj[1] != la[1]:
            return f"weak_type {la[1]}, JAX {lj[1]} ({lj[0]})"
        if lj[2] != la[2]:
            return f"shape {la[2]}, JAX {lj[2]}"
        if lj[3] != la[3]:
            aj = np.frombuffer(lj[3], np.dtype(lj[0]) if lj[0] != "bfloat16" else np.uint16)
            aa = np.frombuffer(la[3], np.dtype(la[0]) if la[0] != "bfloat16" else np.uint16)
            k = int(np.flatnonzero(aj != aa)[0]) if aj.size == aa.size else 0
            return f"bits differ ({lj[0]}; first at {k}: {aa[k]} vs JAX {aj[k]})"
    return None


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    import jax
    import astjax
    names = sorted(n for n in dir(jax.numpy) if not n.startswith("_") and n not in SKIP
                   and callable(getattr(jax.numpy, n)) and not inspect.isclass(
                       getattr(jax.numpy, n)) and hasattr(astjax.numpy, n))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    compared, diffs, known = 0, {}, []
    for name in names:
        for kind, (how, value) in _kinds().items():
            for arity in (1, 2):
                j = _run(jax, name, how, value, arity)
                if j[0] == "err":
                    continue
                compared += 1
                d = _diff(j, _run(astjax, name, how, value, arity))
                if d is not None and (kind, name) in KNOWN:
                    known.append(f"{kind} {name}/{arity}: {d}")
                elif d is not None:
                    diffs.setdefault(kind, []).append(f"{name}/{arity}: {d}")
                    if args.v:
                        print(kind, name, arity, d, flush=True)
        for form, (key, kw, value) in _forms().items():
            if not _takes(jax, name, key):
                continue
            j = _run_call(jax, lambda: _call_form(jax, name, key, kw, value))
            if j[0] == "err":
                continue
            compared += 1
            d = _diff(j, _run_call(astjax, lambda: _call_form(astjax, name, key, kw, value)))
            if d is not None and (form, name) in KNOWN:
                known.append(f"{form} {name}: {d}")
            elif d is not None:
                diffs.setdefault(form, []).append(f"{name}: {d}")
                if args.v:
                    print(form, name, d, flush=True)
    print(f"{compared} calls compared, {sum(map(len, diffs.values()))} differ "
          f"({len(known)} known differences apart)")
    for kind, lines in diffs.items():
        print(f"-- {kind} ({len(lines)})")
        for line in lines:
            print("  ", line)
    for line in known:
        print("known:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
