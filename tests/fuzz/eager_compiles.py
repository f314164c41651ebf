"""How many XLA executables the *first eager call* of each public library function
compiles, in astjax and in JAX 0.10.2 (issue 14: an eager call of a function made of
several primitives should compile about once, as JAX's jitted library functions do):

    nice -n 10 .jaxenv/bin/python tests/fuzz/eager_compiles.py [--only jnp.std,nn.softplus]
        [--json out.json] [--min 3]

Both libraries report each compilation as the monitoring event
`/jax/core/compile/backend_compile_duration`; the sweep listens for it. For each public
function of `numpy`, `nn`, `scipy.special` and `lax` it finds arguments the function
accepts (the API fuzzer's argument maker for it when it has one, else a few plain
float32 signatures), clears every cache (`clear_caches()`), calls it once eagerly and
counts the compiles. Printed: functions where astjax compiles `--min` or more, worst
first, beside JAX's count, and the totals over functions both ran. `--check` also
runs each call under `disable_jit()` (op by op) and lists the functions whose result
differs in any bit from the compiled call's (a library function wrapped in
`numpy.util.library_jit` must give the same bits as before).
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from fuzz.api_gen import TABLE, decode  # noqa: E402
from fuzz.api_gen_more import WIDE  # noqa: E402

EVENT = "/jax/core/compile/backend_compile_duration"
MODULES = {"jnp": "numpy", "nn": "nn", "special": "scipy.special", "lax": "lax"}
# functions that read or write files, print, or configure rather than compute
SKIP = {"load", "save", "savez", "savez_compressed", "fromfile", "fromstring", "genfromtxt",
        "loadtxt", "savetxt", "set_printoptions", "get_printoptions", "printoptions",
        "show_config", "info", "frombuffer", "fromiter", "from_dlpack", "einsum_path",
        "iterable", "isscalar", "ndim", "shape", "size", "result_type", "promote_types",
        "can_cast", "issubdtype", "isdtype", "dtype", "finfo", "iinfo", "broadcast_shapes",
        "vectorize", "frompyfunc", "piecewise", "apply_along_axis", "apply_over_axes",
        "fromfunction", "unravel_index", "ravel_multi_index", "mask_indices",
        "cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan",
        "custom_linear_solve", "custom_root", "reduce", "reduce_window", "sort_key_val",
        "platform_dependent", "stop_gradient", "optimization_barrier", "with_sharding_constraint",
        "axis_index", "axis_size", "psum", "pmean", "pmax", "pmin", "all_gather", "ppermute",
        "all_to_all", "psum_scatter", "pshuffle", "pswapaxes", "pbroadcast", "pcast",
        "composite", "dce_sink", "infeed", "outfeed", "create_token", "after_all",
        "rng_uniform", "rng_bit_generator", "pvary", "precv", "psend", "ragged_all_to_all",
        "empty_ref", "new_ref", "freeze", "ref_get", "ref_set", "ref_swap", "ref_addupdate"}


def _plain_args(rng):
    """Signatures tried, in order, for a function the fuzzer has no maker for."""
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((3, 4)).astype(np.float32)
    z = rng.standard_normal((3, 4)).astype(np.float32)
    m = rng.standard_normal((4, 4)).astype(np.float32)
    v = rng.standard_normal((5,)).astype(np.float32)
    xi = rng.integers(0, 4, (3, 4)).astype(np.int32)
    return [((x,), {}), ((x, y), {}), ((x, y, z), {}), ((m,), {}), ((m, m), {}), ((v,), {}),
            ((v, v), {}), ((xi,), {}), ((xi, xi), {}), (((3, 4),), {}), ((3,), {}),
            ((x, 1), {}), ((x, 0), {}), ((v, 3), {})]


def _fuzz_args(name, n=12):
    """Eager argument sets the API fuzzer draws for `name` (float32 ones first)."""
    maker = {**TABLE, **WIDE}.get(name)
    if maker is None:
        return []
    out = []
    for seed in range(n):
        rng = np.random.default_rng(seed)
        try:
            args, kw = maker[0](rng, False)
        except Exception:  # noqa: BLE001 - a maker that needs its own context
            continue
        dec = ([decode(a) for a in args], {k: decode(v) for k, v in kw.items()})
        f32 = all(getattr(a, "dtype", None) in (None, np.float32) for a in dec[0])
        out.append((0 if f32 else 1, seed, dec))
    return [d for _, _, d in sorted(out, key=lambda t: t[:2])]


def functions(top):
    """(qualified name, function) for every public function the sweep covers in `top`."""
    out = []
    for short, modname in MODULES.items():
        mod = importlib.import_module(f"{top}.{modname}")
        for attr in sorted(getattr(mod, "__all__", None) or dir(mod)):
            if attr.startswith("_") or attr in SKIP:
                continue
            try:
                fn = getattr(mod, attr)
            except Exception:  # noqa: BLE001 - a name that refuses to be read
                continue
            if inspect.isclass(fn) or inspect.ismodule(fn) or not callable(fn):
                continue
            out.append((f"{short}.{attr}", fn))
    return out


class Counter:
    """Counts the compile events of one library's monitoring module."""

    def __init__(self, top):
        self.top = importlib.import_module(top)
        self.n = 0
        mon = importlib.import_module(f"{top}.monitoring")

        def listen(event, *a, **kw):
            if event == EVENT:
                self.n += 1
        mon.register_event_duration_secs_listener(listen)

    def first_call(self, fn, args, kw):
        """Compiles of `fn(*args, **kw)` after every cache was cleared (None: it raised)."""
        self.top.clear_caches()
        n0 = self.n
        try:
            self.out = fn(*args, **kw)
            self.top.block_until_ready(self.out)
        except Exception:  # noqa: BLE001 - the call is not one this library accepts
            return None
        return self.n - n0

    def same_op_by_op(self, fn, args, kw):
        """Whether `fn(*args, **kw)` under `disable_jit()` gives the bits of `self.out`."""
        with self.top.disable_jit():
            ref = fn(*args, **kw)
        got, want = (self.top.tree_util.tree_leaves(t) for t in (self.out, ref))
        return len(got) == len(want) and all(
            np.asarray(a).dtype == np.asarray(b).dtype and np.asarray(a).shape ==
            np.asarray(b).shape and np.asarray(a).tobytes() == np.asarray(b).tobytes()
            for a, b in zip(got, want))


def sweep(only=None, with_jax=True, check=False):
    """{name: (astjax compiles, JAX compiles or None)}; with `check`, also the names
    whose compiled result differs from the op-by-op one."""
    ours = Counter("astjax")
    theirs = Counter("jax") if with_jax else None
    jax_fns = dict(functions("jax")) if with_jax else {}
    rows, differ = {}, []
    for name, fn in functions("astjax"):
        if only and name not in only:
            continue
        tries = _fuzz_args(name) + _plain_args(np.random.default_rng(0))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for args, kw in tries:
                n = ours.first_call(fn, args, kw)
                if n is None:
                    continue
                n = ours.first_call(fn, args, kw)   # (one-time imports and constants done)
                if check and not ours.same_op_by_op(fn, args, kw):
                    differ.append(name)
                theirs_n = None
                if name in jax_fns:
                    theirs_n = theirs.first_call(jax_fns[name], args, kw)
                rows[name] = (n, theirs_n)
                break
    return rows, differ


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", help="comma-separated names (jnp.std,nn.softplus)")
    p.add_argument("--json", help="write {name: [astjax, jax]} here")
    p.add_argument("--min", type=int, default=3, help="print rows where astjax compiles this many")
    p.add_argument("--no-jax", action="store_true", help="astjax only")
    p.add_argument("--check", action="store_true", help="compare with op-by-op results")
    a = p.parse_args()
    rows, differ = sweep(set(a.only.split(",")) if a.only else None, not a.no_jax, a.check)
    both = {k: v for k, v in rows.items() if v[1] is not None}
    for name, (n, m) in sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[0])):
        if n >= a.min:
            print(f"{name:32s} astjax {n:3d}   jax {m if m is not None else '-':>3}")
    print(f"functions: {len(rows)} ran in astjax, {len(both)} in both; "
          f"compiles on first eager call: astjax {sum(v[0] for v in rows.values())} total, "
          f"{sum(v[0] for v in both.values())} vs JAX {sum(v[1] for v in both.values())} "
          f"on the common ones; astjax > 2 on {sum(v[0] > 2 for v in rows.values())}")
    if a.check:
        print(f"compiled result != op-by-op result: {len(differ)} {' '.join(differ)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
