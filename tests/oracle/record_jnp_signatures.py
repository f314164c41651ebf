"""Records `inspect.signature` of every public `jax.numpy` function into
jnp_signatures.json, and of the public functions of `jax.lax`, `jax.random`,
`jax.nn` and `jax.scipy.special` into api_signatures.json (run under jax==0.10.2);
imported, compares astjax's signatures with the stored ones: `missing(name,
jax_params, fn)` lists the JAX parameters astjax's `fn` lacks, names differently,
orders differently or defaults differently (`python
tests/oracle/record_jnp_signatures.py --check` prints them all, `check_api(ns)` one
namespace's)."""
from __future__ import annotations

import inspect
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "jnp_signatures.json")
VALUES_PATH = os.path.join(HERE, "jnp_keyword_values.json")
API_PATH = os.path.join(HERE, "api_signatures.json")
# JAX's namespace -> astjax's module of the same functions
NAMESPACES = {"jax.lax": "astjax.lax", "jax.random": "astjax.random", "jax.nn": "astjax.nn",
              "jax.scipy.special": "astjax.scipy.special"}

# calls that use the parameters fixed in issue 13, evaluated with `jnp` (JAX's or
# astjax's) and `np` in scope; X is 2x3 float32 with a NaN in row 1, V without NaNs
INPUTS = "X = jnp.array([[1., 4., 2.], [3., float('nan'), 0.5]]); V = jnp.nan_to_num(X)"
VALUE_CASES = [
    "jnp.var(V, axis=1, mean=jnp.array([[2.0], [1.0]]))",
    "jnp.std(V, 0, keepdims=True, mean=jnp.ones((1, 3)))",
    "jnp.var(V, ddof=1, mean=2.0)",
    "jnp.nanvar(X, axis=1, mean=jnp.array([[2.0], [1.0]]))",
    "jnp.nanvar(X, 1, None, None, 0, False, None, jnp.array([[2.0], [1.0]]))",
    "jnp.nanstd(X, axis=0, mean=jnp.ones((1, 3)))",
    "jnp.argsort(V, axis=1, dtype=jnp.int16)",
    "jnp.argsort(V, axis=None, descending=True, dtype=jnp.uint8)",
    "jnp.nanargmax(X, axis=1)",
    "jnp.nanargmin(X, 0, None, True)",
    "jnp.max(V, 1, None, True)",
    "jnp.min(V, 0, None, False, 10.0)",
    "jnp.clip(V, 1.0, max=3.0)",
    "jnp.divide(V, 2.0)",
]


def values(jnp):
    """[[value as nested lists, dtype name], ...] of VALUE_CASES under this `jnp`."""
    import numpy as np
    env = {"jnp": jnp, "np": np}
    exec(INPUTS, env)
    out = []
    for case in VALUE_CASES:
        v = np.asarray(eval(case, env))
        out.append([np.where(np.isnan(v), -999.0, v).tolist() if v.dtype.kind == "f"
                    else v.tolist(), v.dtype.name])
    return out
_SIMPLE = (type(None), bool, int, float, str)
_PO, _PK, _VP, _KO, _VK = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL",
                           "KEYWORD_ONLY", "VAR_KEYWORD")


def _default(p):
    """A parameter's default as JSON: absent -> "<required>", simple -> itself,
    anything else (a sentinel, a function) -> "<object>"."""
    if p.default is inspect.Parameter.empty:
        return "<required>"
    return p.default if type(p.default) in _SIMPLE else "<object>"


def params(fn):
    """[[name, kind, default], ...] of fn's signature, or None if it has none."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, _default(p)] for p in sig.parameters.values()]


def missing(name, jax_params, fn):
    """Differences of astjax's `fn` from JAX's recorded parameters of `name`, as
    strings "name.param: what" (empty: every call JAX accepts binds the same way)."""
    ours = params(fn)
    if ours is None:
        return [f"{name}: no signature"]
    by_name = {p[0]: (i, p) for i, p in enumerate(ours)}
    var_kw = any(p[1] == _VK for p in ours)
    var_pos = any(p[1] == _VP for p in ours)
    out = []
    for i, (pname, kind, default) in enumerate(jax_params):
        if pname.startswith("_") or kind in (_VP, _VK):
            if kind == _VP and not var_pos:
                out.append(f"{name}.*{pname}: no *args")
            continue
        if pname not in by_name:
            if kind == _PO:  # its name cannot be used, but shows in signatures and help
                if i >= len(ours) or ours[i][1] not in (_PO, _PK):
                    out.append(f"{name}.{pname}: positional parameter {i} missing")
                else:
                    out.append(f"{name}.{pname}: named {ours[i][0]!r}")
                continue
            if kind != _PO and not var_kw:
                out.append(f"{name}.{pname}: missing")
            continue
        j, (_, okind, odefault) = by_name[pname]
        if kind in (_PO, _PK) and j != i:
            out.append(f"{name}.{pname}: position {j}, JAX's {i}")
        if kind in (_PK, _KO) and okind == _PO:
            out.append(f"{name}.{pname}: positional-only (JAX accepts it by keyword)")
        if kind in (_PO, _PK) and okind == _KO:
            out.append(f"{name}.{pname}: keyword-only (JAX accepts it by position)")
        if (default == "<required>") != (odefault == "<required>"):
            out.append(f"{name}.{pname}: required {odefault == '<required>'}, JAX's "
                       f"{default == '<required>'}")
        elif "<object>" not in (default, odefault) and default != odefault:
            out.append(f"{name}.{pname}: default {odefault!r}, JAX's {default!r}")
    return out


def record(module=None):
    """JAX's signatures of the public callables of `module` (jax.numpy) (JSON)."""
    if module is None:
        import jax.numpy as module
    out = {}
    for name in sorted(dir(module)):
        fn = getattr(module, name)
        if name.startswith("_") or isinstance(fn, type) or not callable(fn):
            continue
        ps = params(fn)
        if ps is not None:
            out[name] = ps
    return out


def check():
    """All differences of astjax.numpy from the stored signatures."""
    import astjax.numpy as ajnp
    with open(PATH) as f:
        recorded = json.load(f)
    out = []
    for name, ps in recorded.items():
        if not hasattr(ajnp, name):
            continue  # absence is tests/test_api_coverage.py's concern
        out += missing(name, ps, getattr(ajnp, name))
    return out


def check_api(namespace):
    """All differences of astjax's module for JAX's `namespace` from the stored
    signatures."""
    import importlib
    ours = importlib.import_module(NAMESPACES[namespace])
    with open(API_PATH) as f:
        recorded = json.load(f)[namespace]
    out = []
    for name, ps in recorded.items():
        fn = getattr(ours, name, None)
        if fn is None or isinstance(fn, type):
            continue  # absence is tests/test_api_coverage.py's concern
        out += missing(name, ps, fn)
    return out


if __name__ == "__main__":
    if "--check" in sys.argv:
        print("\n".join(check()))
        for ns in NAMESPACES:
            print("\n".join(f"{ns}.{d}" for d in check_api(ns)))
    else:
        import jax
        assert jax.__version__ == "0.10.2", jax.__version__
        with open(PATH, "w") as f:
            json.dump(record(), f, indent=0, sort_keys=True)
            f.write("\n")
        import jax.numpy as jnp
        with open(VALUES_PATH, "w") as f:
            json.dump(values(jnp), f)
            f.write("\n")
        import importlib
        with open(API_PATH, "w") as f:
            json.dump({ns: record(importlib.import_module(ns)) for ns in NAMESPACES}, f,
                      indent=0, sort_keys=True)
            f.write("\n")
