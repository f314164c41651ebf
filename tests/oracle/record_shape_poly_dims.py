"""Symbolic dimension arithmetic and JAX's decision procedure (JAX 0.10.2), stored
for tests/test_shape_poly_dims.py (see README.md).

`TABLE` maps a scope's constraints (`;`-separated) to expressions over its variables `a, b, c`:
exact and non-exact divisions (`floordiv`/`mod` atoms), `max`/`min` atoms, true
division and powers (JAX turns the dimension into an array: an error outside a
staged function), comparisons JAX proves by combining constraints with the atoms'
bounds, and equality constraints JAX applies as rewrites. `CALLS` exports small
functions under constraints and calls them with shapes that fit and that do not
(JAX's shape-assertion errors). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_shape_poly_dims.py` writes
shape_poly_dims.json: per scope and expression the `str` of the result, or the
error's class and first line; per call its result or error.
"""
import json
import sys
from pathlib import Path

import numpy as np

_PLAIN = [
    # polynomial division, exact and not
    "(a*b + a) // a", "(a*b) // b", "(a*b) % a", "(a*b + 1) // a", "(a*b + 1) % a",
    "(2*a*b + 4*a) // (2*a)", "b // a", "b % a", "(3*b + 1) // 3", "(3*b + 2) % 3",
    "(2*b + 1) // 4", "-b // 2", "b // -2", "b % -2", "3 // b", "3 % b", "b // b",
    "(a*a + 2*a*b + b*b) // (a + b)", "(a*a - b*b) // (a - b)", "divmod(2*b + 3, 2)",
    "(b // 2) * 2 + b % 2", "(b // 2) // 3", "b // 2 + b // 2",
    # max / min atoms and what decides them
    "a.max(b)", "a.min(b)", "b.max(b + 1)", "b.min(b - 1)", "b.max(1)", "b.min(1)",
    "b.max(0)", "(b - 3).max(0)", "a.max(b) + a.min(b)", "a.max(b) - a",
    "a.max(b) >= a", "a.max(b) >= b", "a.min(b) <= a", "a.max(b) >= a.min(b)",
    "a.max(b) >= a + b", "a.max(b) < a + b", "(b - 3).max(0) >= 0", "(b - 3).max(0) >= b - 3",
    "a.max(b) == b.max(a)", "a.max(b).max(a)",
    # comparisons of floordiv / mod / products
    "b % 2 <= 1", "b // 2 <= b", "2*(b // 2) <= b", "b - (b // 2) >= 0", "b // 2 < b",
    "(b // 2) * 2 >= b - 1", "b % a < a", "b // a <= b", "b*b >= b", "a*b >= a",
    "a*b >= a + b - 1", "b**2 >= 2*b - 1", "b*b >= 2*b", "(b + 1) // 2 >= 1",
    "b % 3 >= 1", "b % 3 == 0", "b - 1 >= 0", "b - 2 >= 0",
    # structural equality
    "a*b == b*a", "(a + b) - b == a", "b // 2 == b // 2", "(2*b) // 2 == b", "b + 0 == b",
    "a == b", "b == 1",
    # true division, powers, constants, non-integers
    "b / 2", "b / b", "2 ** b", "b ** 0", "b ** 1", "int(b - b + 3)", "int(b // b)",
    "b * 1.5", "b + 1.0", "b // 2.0",
]

TABLE = {
    "": _PLAIN,
    "a >= b; b >= 4": ["a >= 4", "a - b >= 0", "a >= b + 1", "a >= 5", "a.max(b)", "a.min(b)",
                       "b.max(4)", "b.min(3)", "a // b >= 1", "a - 3 >= b // 2",
                       "(a - b).max(0)", "a * b >= 16", "b // 2 >= 2", "b % 4 < 4"],
    "a >= b + 1; b >= c + 1": ["a >= c + 2", "a >= c", "a > b", "a - c >= 1", "c >= a",
                               "a.max(c)", "a.min(c)", "a >= 3", "b >= 2"],
    "a >= 2*b; b >= 3": ["a >= 6", "a >= 2*b", "a >= b", "a >= 7", "a - b >= 3",
                         "a // 2 >= b", "a.max(b)"],
    "a <= 8; b <= a": ["a <= 8", "b <= 8", "b <= 9", "b < 8", "8 - a >= 0",
                       "a.min(8)", "b.max(8)", "a*b <= 64"],
    "a == b + 1": ["a", "a - b", "a >= b", "a > b", "a == b + 1", "a * 2", "a // 2",
                   "a*b", "a.max(b)", "b + 1 - a"],
    "2*a == b": ["b", "b // 2", "a", "b - a", "b >= a", "b % 2", "b + 2*a"],
    "mod(b, 2) == 0": ["b % 2", "b // 2 * 2", "2*(b // 2) - b", "b >= 2", "b % 4",
                       "(b + 1) % 2"],
    "a*b == c": ["c", "a*b", "c // a", "a*b - c", "c >= a", "c >= b"],
    "b <= 10; b >= 3": ["b >= 3", "b <= 10", "b > 10", "b.max(11)", "b.min(2)",
                        "b // 4 <= 2", "b % 16", "10 - b >= 0", "b*b <= 100"],
}


def call_functions(jnp):
    """name -> function of two arguments, exported for CALLS."""
    return {"concat_add": lambda x, y: jnp.concatenate([x, x]) + y,
            "tail_add": lambda x, y: x[1:] + y,
            "head_add": lambda x, y: x[:y.shape[0]] + y,
            "halves": lambda x, y: x.reshape((x.shape[0] // 2, 2)).sum(1) * y.sum()}


# calls of exports under constraints: (constraints, function, specs, [shapes per call])
CALLS = [
    ("2*a == b", "concat_add", ("a", "b"), [((3,), (6,)), ((3,), (5,)), ((2,), (7,))]),
    ("a == b + 1", "tail_add", ("a", "b"), [((4,), (3,)), ((4,), (4,))]),
    ("a >= b", "head_add", ("a", "b"), [((5,), (3,)), ((4,), (4,)), ((2,), (3,))]),
    ("a >= b; b >= 2", "head_add", ("a", "b"), [((5,), (3,)), ((3,), (1,))]),
    ("mod(a, 2) == 0", "halves", ("a", "b"), [((6,), (4,)), ((5,), (4,))]),
]


def run_calls(jax, jnp, export):
    """Per CALLS entry: the export's printed out_avals and each call's result (as a
    list) or error (class and first line)."""
    fns, out = call_functions(jnp), []
    for constraints, name, specs, calls in CALLS:
        scope = export.SymbolicScope(scope_constraints(constraints))
        args = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), "float32")
                for s in specs]
        exp = export.export(jax.jit(fns[name]))(*args)
        got = {"out_avals": [str(a) for a in exp.out_avals], "calls": []}
        for shapes in calls:
            xs = [(1 + np.arange(np.prod(s))).astype(np.float32).reshape(s) for s in shapes]
            try:
                got["calls"].append({"value": np.asarray(exp.call(*xs)).tolist()})
            except Exception as e:  # noqa: BLE001
                got["calls"].append(error_of(e))
        out.append(got)
    return out


def error_of(e):
    """An error as its builtin class (InconclusiveDimensionOperation by name) and the
    first line of its message (astjax's: without the location)."""
    name = type(e).__name__
    if "Inconclusive" not in name:
        name = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
    return {"error": name, "message": getattr(e, "message", str(e)).split("\n")[0]}


def scope_constraints(key):
    """The constraints tuple of a TABLE key."""
    return tuple(c.strip() for c in key.split(";")) if key else ()


def evaluate_all(export):
    """scope key -> expression -> {"value": str} or {"error", "message"}."""
    out = {}
    for key, exprs in TABLE.items():
        a, b, c = export.symbolic_shape("a, b, c", constraints=scope_constraints(key))
        out[key] = {}
        for text in exprs:
            try:
                out[key][text] = {"value": str(eval(text, {"a": a, "b": b, "c": c}))}
            except Exception as e:  # noqa: BLE001
                out[key][text] = error_of(e)
    return out


def main():
    import jax
    import jax.numpy as jnp
    from jax import export
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {"dims": evaluate_all(export), "calls": run_calls(jax, jnp, export)}
    path = Path(__file__).with_name("shape_poly_dims.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {sum(map(len, out['dims'].values()))} expressions, "
          f"{len(out['calls'])} exports")


if __name__ == "__main__":
    sys.exit(main())
