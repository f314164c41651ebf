"""Which `jax.numpy` functions refuse Python lists and tuples, recorded from JAX.

JAX checks that most `jnp` functions get arrays or scalars (`jnp.sum([1, 2])` raises
`TypeError: sum requires ndarray or scalar arguments, got <class 'list'> at position
0.`), while the constructors (`array`, `asarray`, `stack`, ...) accept sequences. This
recorder finds, for every public function of `jax.numpy`, `jax.numpy.linalg` and
`jax.numpy.fft`, the first of a few simple array calls (`ARGSETS`) that succeeds, then
calls it again with each positional operand replaced by its list and tuple form and
with all of them as lists, and stores what JAX does: the exception's class and message,
or the value. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_arraylike.py` writes arraylike.json.
"""
import json
import sys
import warnings
from pathlib import Path

import numpy as np

# Named operands: float vector, float matrix, int vector, bool vector, int scalars.
OPERANDS = {
    "A": np.array([0.5, 1.5, 2.5], np.float32),
    "M": np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 4.0]], np.float32),
    "I": np.array([1, 2, 3], np.int32),
    "B": np.array([True, False, True]),
    "S": 3,
    "Z": 0,
}
ARGSETS = [("A",), ("A", "A"), ("A", "A", "A"), ("M",), ("M", "M"), ("M", "A"),
           ("I",), ("I", "I"), ("B",), ("B", "B"), ("S",), ("A", "S"), ("M", "S"),
           ("I", "A"), ("A", "I"), ("M", "I"), ("I", "S"), ("A", "A", "S"), ("B", "A", "A"),
           ("A", "Z", "Z"), ("M", "Z", "Z"), ("A", "Z", "A"), ("M", "A", "Z")]
# Functions whose first working call above is a degenerate reading (float conditions,
# float shapes, scalar keys) start from these instead.
FIRST_ARGS = {"select": ("B", "A"), "lexsort": ("M",), "unravel_index": ("I", "I"),
              **{f: ("M",) for f in ("stack", "vstack", "hstack", "dstack", "column_stack",
                                     "block")}}
MODULES = ("", "linalg", "fft")
# Calls that never finish quickly, print, or touch files.
SKIP = {"load", "save", "savez", "fromfile", "fromiter", "frompyfunc", "fromstring",
        "from_dlpack", "get_printoptions", "set_printoptions", "printoptions",
        "show_config", "vectorize", "piecewise", "apply_along_axis",
        "apply_over_axes", "einsum_path", "frombuffer", "genfromtxt", "loadtxt"}


def operand(kind, key):
    """The operand `key` as an array ("arr"), a list or a tuple."""
    v = OPERANDS[key]
    if kind == "arr" or np.isscalar(v):
        return v
    lst = v.tolist()
    return lst if kind == "list" else tuple(tuple(r) if isinstance(r, list) else r
                                            for r in lst)


def build(spec, jnp_asarray):
    return [jnp_asarray(OPERANDS[k]) if kind == "arr" and not np.isscalar(OPERANDS[k])
            else operand(kind, k) for kind, k in spec]


def encode(y):
    """A JSON form of a result: arrays by dtype/shape/values, tuples elementwise."""
    if isinstance(y, (tuple, list)):
        return {"tuple": [encode(v) for v in y]}
    if hasattr(y, "shape") and hasattr(y, "dtype"):
        a = np.asarray(y)
        if a.dtype.kind == "c":
            return {"dtype": str(a.dtype), "shape": list(a.shape),
                    "re": np.real(a).ravel().tolist(), "im": np.imag(a).ravel().tolist()}
        return {"dtype": str(a.dtype), "shape": list(a.shape),
                "values": a.astype(np.float64).ravel().tolist()}
    if isinstance(y, (bool, int, float, np.generic)):
        return {"scalar": float(y)}
    return {"other": type(y).__name__}


def outcome(f, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = f(*args)
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return {"raises": type(e).__name__, "message": str(e).split("\n")[0]}
    return {"value": encode(y)}


def functions(jnp):
    for mod in MODULES:
        ns = getattr(jnp, mod) if mod else jnp
        for name in sorted(dir(ns)):
            f = getattr(ns, name)
            if (name.startswith("_") or name in SKIP or isinstance(f, type)
                    or not callable(f) or type(f).__name__ in ("dtype", "_ScalarMeta")):
                continue
            yield (f"{mod}.{name}" if mod else name), f


def record(path):
    import jax.numpy as jnp
    cases = []
    for qual, f in functions(jnp):
        for keys in ([FIRST_ARGS[qual]] if qual in FIRST_ARGS else ARGSETS):
            base = [("arr", k) for k in keys]
            if "raises" in outcome(f, build(base, jnp.asarray)):
                continue
            variants = []
            seq = [i for i, k in enumerate(keys) if not np.isscalar(OPERANDS[k])]
            for i in seq:
                for kind in ("list", "tuple"):
                    variants.append([(kind, k) if j == i else ("arr", k)
                                     for j, k in enumerate(keys)])
            if len(seq) > 1:
                variants.append([("list", k) if j in seq else ("arr", k)
                                 for j, k in enumerate(keys)])
            for spec in variants:
                cases.append({"function": qual, "args": spec,
                              **outcome(f, build(spec, jnp.asarray))})
            break
    Path(path).write_text(json.dumps(cases, indent=0))
    print(len(cases), "cases")


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("arraylike.json"))
