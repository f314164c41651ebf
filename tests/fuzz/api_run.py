"""Differential API fuzzing against JAX 0.10.2, in one process:

    nice -n 5 .jaxenv/bin/python tests/fuzz/api_run.py --seeds 0:2000 [--out api_fuzz.jsonl]
    tests/fuzz/api_long.sh 0 20000        # a long run in chunks of 1000 seeds

Each seed is one random call (`api_gen.generate`: a jnp / lax / nn / scipy.special
function, random dtypes, shapes and edge values, under eager / jit / vmap / grad, with
`jax_enable_x64` on or off). The call runs in astjax and in JAX (an interpreter with both
installed: the worktree's `.jaxenv`); the results are compared leaf by leaf: tree
structure, shape, dtype, weak type, values (bit-exact for integers and booleans, NaN-aware
within a per-dtype tolerance for floats), or -- where JAX raises -- the builtin class of
JAX's error, which astjax's error must be an instance of. Each mismatch is written as one
JSON line with its category, details and a runnable repro; a summary counts calls and
mismatches by category.

`summarize(lib, call)` and `compare(got, want)` are what `tests/test_api_fuzz.py` uses to
replay stored calls (`tests/oracle/record_api_fuzz.py` records JAX's summaries).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from fuzz.api_gen import decode, generate, is_dynamic, np_dtype, render  # noqa: E402

ALIASES = {"jnp.argmax_axis": "jnp.argmax", "jnp.argmin_axis": "jnp.argmin",
           "jnp.power_int": "jnp.power", "at_nowrap": "at"}
# values agree within rtol = atol = this, per dtype (XLA's kernels; a few ulps)
TOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5, "float64": 1e-12,
       "complex64": 2e-5, "complex128": 1e-12}


def _at(jnp):
    # (x as the library's array: outside jit it is a NumPy array, without `.at`)
    return lambda x, idx, *v, method, **kw: getattr(jnp.asarray(x).at[idx], method)(*v, **kw)


def _getitem(jnp):
    return lambda x, idx: jnp.asarray(x)[idx]


def _astype(jnp):
    return lambda x, dt: jnp.asarray(x).astype(dt)


def resolve(lib, name):
    """The function `name` of the call table names in library `lib` (a dict of modules)."""
    name = ALIASES.get(name, name)
    if name in ("at", "getitem", "astype"):
        return {"at": _at, "getitem": _getitem, "astype": _astype}[name](lib["jnp"])
    mod, *attrs = name.split(".")
    target = lib[mod]
    for attr in attrs:   # ("stats.poisson.entropy": a module's function)
        target = getattr(target, attr)
    return target


def libraries(top):
    """The namespaces a call names, for `top` (the `jax` or `astjax` module)."""
    import importlib
    random = importlib.import_module(top.__name__ + ".random")

    class TypedKeys:   # `random_typed.f(raw_key, ...)`: f on the typed key wrapping it
        def __getattr__(self, name):
            return lambda key, *a, **kw: getattr(random, name)(random.wrap_key_data(key), *a, **kw)
    return {"jnp": importlib.import_module(top.__name__ + ".numpy"),
            "linalg": importlib.import_module(top.__name__ + ".numpy.linalg"),
            "sla": importlib.import_module(top.__name__ + ".scipy.linalg"),
            "random": random, "random_typed": TypedKeys(),
            "lax": importlib.import_module(top.__name__ + ".lax"),
            "nn": importlib.import_module(top.__name__ + ".nn"),
            "special": importlib.import_module(top.__name__ + ".scipy.special"),
            "stats": importlib.import_module(top.__name__ + ".scipy.stats"),
            "top": top}


def build(lib, call):
    """The zero-argument thunk running `call` in `lib`."""
    target = resolve(lib, call["fn"])
    args = [decode(a) for a in call["args"]]
    kw = {k: decode(v) for k, v in call["kw"].items()}
    dyn_pos = [i for i, a in enumerate(call["args"]) if is_dynamic(a)]
    dyn = [args[i] for i in dyn_pos]
    top = lib["top"]
    jnp = lib["jnp"]

    def f(*d):
        full = list(args)
        for i, v in zip(dyn_pos, d):
            full[i] = v
        return target(*full, **kw)

    mode = call["mode"]
    if mode == "eager":
        return lambda: f(*dyn)
    if mode == "jit":
        return lambda: top.jit(f)(*dyn)
    if mode == "vmap":
        axes = tuple(0 if "a" in call["args"][i] else None for i in dyn_pos)
        if not any(a == 0 for a in axes):
            return lambda: top.jit(f)(*dyn)
        return lambda: top.vmap(f, in_axes=axes)(*dyn)

    def loss(*d):
        return jnp.sum(f(*d))
    return lambda: top.grad(loss)(*dyn)


def _builtin_class(exc):
    for c in type(exc).__mro__:
        if c.__module__ == "builtins":
            return c
    return Exception


def summarize(lib, call):
    """What `call` gives in `lib`: {"error": builtin class name, "msg": ...} or
    {"tree": structure, "leaves": [{"dtype", "shape", "weak", "hex"}]}."""
    top = lib["top"]
    before = top.config.read("jax_enable_x64")
    top.config.update("jax_enable_x64", call["x64"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                out = build(lib, call)()
                leaves, tree = top.tree_util.tree_flatten(out)
                res = []
                for leaf in leaves:
                    a = np.asarray(leaf)
                    weak = bool(top.typeof(leaf).weak_type) if hasattr(leaf, "dtype") else None
                    res.append({"dtype": str(a.dtype), "shape": list(a.shape), "weak": weak,
                                "hex": a.tobytes().hex()})
        return {"tree": str(tree).replace("PyTreeDef", "").strip(), "leaves": res}
    except Exception as e:   # noqa: BLE001 - every error is a result to compare
        return {"error": _builtin_class(e).__name__, "cls": type(e).__name__,
                "bases": [c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"],
                "msg": str(e).splitlines()[0][:300] if str(e) else ""}
    finally:
        top.config.update("jax_enable_x64", before)


def _values(leaf):
    return np.frombuffer(bytes.fromhex(leaf["hex"]), np_dtype(leaf["dtype"])).reshape(leaf["shape"])


def _value_mismatch(g, w, dtype):
    """None, or (category, detail) for two leaves' values of one dtype."""
    if dtype in TOL:
        tol = TOL[dtype]
        gv = _values(g).astype(np.complex128 if "complex" in dtype else np.float64)
        wv = _values(w).astype(gv.dtype)
        parts = [(gv.real, wv.real), (gv.imag, wv.imag)] if "complex" in dtype else [(gv, wv)]
        for a, b in parts:
            nan = np.isnan(a) != np.isnan(b)
            fin = np.isfinite(a) & np.isfinite(b)
            inf = ~np.isnan(a) & ~np.isnan(b) & ~fin & (a != b)
            with np.errstate(all="ignore"):
                err = np.where(fin, np.abs(a - b) / (tol + tol * np.abs(b)), 0.0)
            if nan.any() or inf.any() or (err > 1).any():
                i = int(np.argmax(nan | inf | (err > 1)))
                big = nan.any() or inf.any() or (err > 1e3 / tol * 1e-3 * 50).any()
                rel = float(np.max(np.where(fin, np.abs(a - b) / (1e-30 + np.abs(b)), 0)))
                cat = "value" if big or rel > 1e-3 else "tolerance"
                return cat, f"at flat {i}: astjax {a.ravel()[i]!r} JAX {b.ravel()[i]!r} (max rel {rel:.3g})"
        return None
    if g["hex"] != w["hex"]:
        a, b = _values(g).ravel(), _values(w).ravel()
        i = int(np.argmax(a != b))
        return "value", f"at flat {i}: astjax {a[i]!r} JAX {b[i]!r}"
    return None


def compare(got, want):
    """A list of (category, detail) where astjax's summary `got` differs from JAX's `want`."""
    if "error" in want:
        if "error" not in got:
            return [("missing_error", f"JAX raises {want['cls']}: {want['msg']}")]
        if want["error"] not in got.get("bases", [got["error"]]) and got["cls"] != want["cls"]:
            return [("error_class", f"astjax {got['cls']}({got['msg']}) JAX {want['cls']}({want['msg']})")]
        return []
    if "error" in got:
        return [("astjax_error", f"{got['cls']}: {got['msg']}")]
    if len(got["leaves"]) != len(want["leaves"]):
        return [("structure", f"astjax {got['tree']} JAX {want['tree']}")]
    out = []
    for k, (g, w) in enumerate(zip(got["leaves"], want["leaves"])):
        if g["shape"] != w["shape"]:
            out.append(("shape", f"leaf {k}: astjax {g['shape']} JAX {w['shape']}"))
            continue
        if g["dtype"] != w["dtype"]:
            out.append(("dtype", f"leaf {k}: astjax {g['dtype']} JAX {w['dtype']}"))
            continue
        if g["weak"] != w["weak"]:
            out.append(("weak_type", f"leaf {k}: astjax weak={g['weak']} JAX weak={w['weak']}"))
        m = _value_mismatch(g, w, g["dtype"])
        if m:
            out.append((m[0], f"leaf {k}: {m[1]}"))
    return out


def _non_canonical_passthrough(call, got, want):
    """JAX's vmap hands a NumPy input back unconverted when the function only passes it
    on (jax-ml/jax#25745, an open bug): a 64-bit dtype with x64 off, astjax's canonical."""
    if call["mode"] != "vmap" or call["x64"] or "leaves" not in got or "leaves" not in want:
        return False
    pairs = [(g["dtype"], w["dtype"]) for g, w in zip(got["leaves"], want["leaves"])
             if g["dtype"] != w["dtype"]]
    narrow = {"float64": "float32", "complex128": "complex64", "int64": "int32",
              "uint64": "uint32"}
    return bool(pairs) and all(narrow.get(w) == g for g, w in pairs)


def _betaln_differs(call):
    """`betaln` / `beta` where JAX 0.10.2's large-argument series is off (float64, max(a, b)
    >= 8; a negative min(a, b) there) or its gradient NaN (a + b < 0)."""
    if call["fn"] not in ("special.betaln", "special.beta") or len(call["args"]) != 2:
        return False
    if any(np.iscomplexobj(decode(v)) for v in call["args"]):
        return False
    try:   # (bfloat16 is NumPy kind "V")
        a, b = (np.asarray(decode(v), np.float64) for v in call["args"])
    except (TypeError, ValueError):
        return False
    a, b = np.broadcast_arrays(a, b)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    with np.errstate(invalid="ignore"):
        big = (hi >= 8) & np.isfinite(hi)
        return bool((big & (lo < 0)).any() or (call["x64"] and big.any())
                    or (call["mode"] == "grad" and (a + b < 0).any()))


def documented(call, got, want=None):
    """Why `call`'s difference from JAX is expected (docs/coming_from_jax.md), or None:
    the fuzzer still draws these calls and counts them apart from the mismatches."""
    if want is not None and _non_canonical_passthrough(call, got, want):
        return "vmap returns a NumPy input unconverted"
    if _betaln_differs(call):
        return "betaln's large-argument series"
    args = [decode(a) for a in call["args"]]
    if call["fn"] == "jnp.searchsorted" and args and np.ndim(args[0]) == 2 and any(
            (np.diff(row) < 0).any() for row in args[0]):
        # (`_batched` draws the second row at random) an unsorted `a`: unspecified result
        return "searchsorted of an unsorted array"
    if call["fn"] in ("lax.igamma", "special.gammainc") and len(args) == 2 and all(
            np.asarray(v).dtype.kind in "biuf" for v in args):
        a, x = (np.asarray(v, np.float64) for v in args)
        with np.errstate(invalid="ignore"):
            if ((a == 0) & (x > 0) & (x < 1)).any():
                # "values that differ on purpose": P(0, x) is SciPy's 1, not JAX's NaN
                return "gammainc(0, x) for 0 < x < 1"
    if call["fn"] == "special.expi" and args and np.asarray(args[0]).dtype == np.float16:
        x = np.asarray(args[0], np.float64)
        if (((x > -1.87) & (x < -1.0)) | ((x > 0) & (x <= 2)) | (x >= 9.2)).any():
            # "values that differ on purpose": JAX's float16 coefficients overflow (NaN)
            return "expi in float16 where JAX's is NaN"
    if call["fn"] == "special.expn" and len(args) == 2 and not any(
            np.iscomplexobj(v) for v in args):
        with np.errstate(invalid="ignore"):
            n, x = np.broadcast_arrays(np.asarray(args[0], np.float64),
                                       np.asarray(args[1], np.float64))
            if ((x == 0) & (n >= 2)).any():
                # "values that differ on purpose": E_n(0) is SciPy's 1/(n - 1), not JAX's 1/n
                return "expn(n, 0) for n >= 2"
    where = call["kw"].get("where")
    if where is not None and args and hasattr(args[0], "shape"):
        shape, mask = np.shape(args[0]), np.shape(decode(where))
        try:
            up = np.broadcast_shapes(shape, mask) != shape
        except ValueError:
            up = False
        if up and "ValueError" in got.get("bases", ()):
            # "Errors where JAX 0.10.2 computes a wrong shape": a `where` mask that
            # broadcasts the operand up is astjax's (and NumPy's) ValueError
            return "where mask broadcasting the operand up"
    return None


# seeds whose call never returns in JAX 0.10.2 (not run): 50146, expi of an array holding
# both a tiny negative and another negative value (`expi(float32([-1e-30, -0.33]))`; its
# negative-argument loop does not end; astjax: [-68.500336, -0.8361011], SciPy's); 61168,
# expn(2**31 - 1, x) (its recurrence counts to n)
JAX_HANGS = {50146, 61168}


def fuzz(seeds, out=None, log=sys.stdout):
    """Runs `seeds`; returns (calls, Counter of categories, list of mismatch records)."""
    import astjax
    import jax
    ax, jx = libraries(astjax), libraries(jax)
    cats = collections.Counter()
    records = []
    n = 0
    for seed in seeds:
        if seed in JAX_HANGS:
            cats["documented: JAX 0.10.2 does not return"] += 1
            continue
        call = generate(seed)
        want = summarize(jx, call)
        got = summarize(ax, call)
        n += 1
        diffs = compare(got, want)
        why = documented(call, got, want) if diffs else None
        if why:
            cats["documented: " + why] += 1
            continue
        for cat, detail in diffs:
            cats[cat] += 1
            rec = {"seed": seed, "fn": call["fn"], "mode": call["mode"], "x64": call["x64"],
                   "category": cat, "detail": detail, "repro": render(call), "call": call}
            records.append(rec)
            if out:
                out.write(json.dumps(rec) + "\n")
                out.flush()
    return n, cats, records


def show(seed):
    """Prints seed's call, both libraries' results and their differences."""
    import astjax
    import jax
    call = generate(seed)
    print(render(call))
    want, got = summarize(libraries(jax), call), summarize(libraries(astjax), call)
    for who, r in (("JAX", want), ("astjax", got)):
        if "error" in r:
            print(f"{who}: {r['cls']}: {r['msg']}")
            continue
        for leaf in r["leaves"]:
            print(f"{who}: {leaf['dtype']}{leaf['shape']} weak={leaf['weak']}\n  {_values(leaf)}")
    print(compare(got, want))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0:200", help="A:B, a range of seeds")
    p.add_argument("--out", default=None, help="JSON lines file for mismatches (appended)")
    p.add_argument("--show", type=int, default=None, help="one seed: print both results")
    p.add_argument("--new-names", action="store_true",
                   help="only the seeds drawing a name of api_gen_names' table (seeds >= "
                        "60000) or api_gen_stats' (seeds >= 70000)")
    a = p.parse_args(argv)
    if a.show is not None:
        show(a.show)
        return
    lo, hi = (int(s) for s in a.seeds.split(":"))
    seeds = range(lo, hi)
    if a.new_names:
        from fuzz.api_gen_names import NAMES
        from fuzz.api_gen_stats import STATS
        seeds = [s for s in seeds if generate(s)["fn"] in {**NAMES, **STATS}]
    t = time.time()
    with open(a.out, "a") if a.out else open(os.devnull, "w") as f:
        n, cats, records = fuzz(seeds, f)
    print(f"{n} calls in {time.time() - t:.0f}s; mismatches: {dict(cats) or 'none'}")
    by = collections.Counter((r["category"], r["fn"]) for r in records)
    # (categories "documented: ...": expected differences, no records)
    for (cat, fn), k in by.most_common():
        first = next(r for r in records if r["category"] == cat and r["fn"] == fn)
        print(f"  {cat:14s} {fn:28s} x{k}  seed {first['seed']} {first['mode']}: {first['detail'][:150]}")


if __name__ == "__main__":
    main()
