"""Shape polymorphism in `jax.export` (JAX 0.10.2), stored for tests/test_shape_poly.py
(see README.md).

`functions(jax, jnp, lax)` gives the functions; `CASES` their symbolic shape
specifications (one string per argument, None for a concrete argument), dtype and
the concrete shapes they are called with (two sizes or more); `ERRORS` functions
JAX refuses to export, with their specifications. `DIMS` are expressions of
dimension arithmetic and comparisons. Run with JAX 0.10.2 and the `flatbuffers`
package: `PYTHONPATH=<dir with flatbuffers> /work/jaxref/bin/python
tests/oracle/record_shape_poly.py` writes shape_poly.json: per case the printed
`in_avals` / `out_avals`, the results of calling the export at each size (equal to
the function's own), the gradient of the first result's sum through the exported
VJP, and the artifact (base64); per error the class and message; per expression
its text or error.
"""
import base64
import json
import sys
from pathlib import Path

import numpy as np


def functions(jax, jnp, lax):
    """name -> function (exported as `jax.jit(fn)`)."""
    def python_loop(x):
        for i in range(3):
            x = x * 2 + i
        return x

    def scan_cumsum(x):
        def step(c, row):
            c = c + row
            return c, c
        return lax.scan(step, jnp.zeros(x.shape[1:], x.dtype), x)[1]

    return {
        # the docs' examples (export/shape_poly.md)
        "doc_concat": lambda x: jnp.concatenate([x, x], axis=1),
        "doc_add": lambda x, y: x + y,
        "doc_dim_as_value": lambda x: jnp.sum(x, axis=0) / x.shape[0],
        # a representative set
        "elementwise": lambda x: jnp.sin(x) * 2 + 1,
        "scalar_mean": lambda x: x - jnp.sum(x) / x.shape[0],
        "reductions": lambda x: (jnp.sum(x, axis=0), jnp.max(x, axis=1), jnp.mean(x, axis=0)),
        "matmul": lambda x, w: x @ w,
        "batched_dot": lambda x, y: jnp.einsum("bij,bjk->bik", x, y),
        "reshape_flat": lambda x: jnp.reshape(x, (-1,)),
        "reshape_dims": lambda x: x.reshape(x.shape[0] * 2, 2),
        "concat0": lambda x: jnp.concatenate([x, 2 * x], axis=0),
        "slice_static": lambda x: (x[:, 1:3], x[0], x[-1]),
        "slice_tail": lambda x: x[1:] - x[:-1],
        "arange": lambda x: jnp.arange(x.shape[0]) * 1.0 + x[:, 0],
        "ones_zeros": lambda x: jnp.zeros_like(x) + jnp.ones((x.shape[0], 1)),
        "where": lambda x: jnp.where(x > 2, x, 0.0),
        "gram": lambda x: x.T @ x,
        "outer": lambda x, y: jnp.outer(x, y),
        "python_loop": python_loop,
        "fori_loop": lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2 + i, x),
        "scan_rows": scan_cumsum,
        "vmap_inside": lambda x: jax.vmap(lambda r: jnp.dot(r, r))(x),
        "grad_inside": lambda x: jax.grad(lambda y: jnp.sum(y ** 3))(x),
        "softmax": lambda x: jax.nn.softmax(x, axis=-1),
        "dim_arith": lambda x: jnp.ones((x.shape[0] // 2 + 1, 3)) * x.shape[0],
        "int_dtype": lambda i: i * 2 + i.shape[0],
        "constrained": lambda x, y: x[:y.shape[0]] + y,
    }


# name -> (specs, dtype, [concrete shapes per argument, per size], constraints)
CASES = {
    "doc_concat": (["a, b"], "int32", [[(3, 4)], [(2, 5)]], ()),
    "doc_add": (["a, 1", "a, 4"], "float32", [[(3, 1), (3, 4)], [(5, 1), (5, 4)]], ()),
    "doc_dim_as_value": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "elementwise": (["b, 4"], "float32", [[(3, 4)], [(5, 4)]], ()),
    "scalar_mean": (["b, 4"], "float32", [[(3, 4)], [(5, 4)]], ()),
    "reductions": (["b, 4"], "float32", [[(3, 4)], [(6, 4)]], ()),
    "matmul": (["b, 4", None], "float32", [[(3, 4), (4, 2)], [(7, 4), (4, 2)]], ()),
    "batched_dot": (["b, 2, 3", "b, 3, 2"], "float32",
                    [[(2, 2, 3), (2, 3, 2)], [(5, 2, 3), (5, 3, 2)]], ()),
    "reshape_flat": (["b, 4"], "float32", [[(3, 4)], [(5, 4)]], ()),
    "reshape_dims": (["b, 4"], "float32", [[(3, 4)], [(5, 4)]], ()),
    "concat0": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "slice_static": (["b, 4"], "float32", [[(3, 4)], [(5, 4)]], ()),
    "slice_tail": (["b"], "float32", [[(3,)], [(6,)]], ()),
    "arange": (["b, 2"], "float32", [[(3, 2)], [(5, 2)]], ()),
    "ones_zeros": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "where": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "gram": (["b, 3"], "float32", [[(2, 3)], [(5, 3)]], ()),
    "outer": (["a", "b"], "float32", [[(2,), (3,)], [(4,), (1,)]], ()),
    "python_loop": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "fori_loop": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "scan_rows": (["b, 2"], "float32", [[(3, 2)], [(5, 2)]], ()),
    "vmap_inside": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "grad_inside": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "softmax": (["b, 4"], "float32", [[(3, 4)], [(2, 4)]], ()),
    "dim_arith": (["2*b"], "float32", [[(4,)], [(6,)]], ()),
    "int_dtype": (["b"], "int32", [[(3,)], [(5,)]], ()),
    "constrained": (["a", "b"], "float32", [[(5,), (3,)], [(4,), (4,)]], ("a >= b",)),
}

# functions JAX refuses: name -> (function, specs, constraints)
def error_functions(jax, jnp, lax):
    """name -> (function, specs): exports that raise."""
    def branch_on_dim(x):
        if x.shape[0] >= 2:
            return x
        return -x
    return {
        "inconclusive_if": (branch_on_dim, ["b"]),
        "int_of_dim": (lambda x: jnp.ones(int(x.shape[0])), ["b"]),
        "broadcast_const": (lambda x: x + jnp.ones(4), ["b"]),
        "broadcast_vars": (lambda x, y: x + y, ["a", "b"]),
        "reshape_uneven": (lambda x: x.reshape(3, -1), ["b"]),
        "unconstrained_slice": (lambda x, y: x[:y.shape[0]] + y, ["a", "b"]),
    }


# calls that do not fit the export of `x * 2` for the spec: name -> (spec, shape, dtype)
CALL_ERRORS = {
    "zero_dim": ("b, 4", (0, 4), "float32"),
    "rank": ("b, 4", (4,), "float32"),
    "constant_dim": ("b, 4", (3, 5), "float32"),
    "inconsistent": ("b, b", (3, 4), "float32"),
    "remainder": ("2*b", (5,), "float32"),
    "dtype": ("b, 4", (3, 4), "int32"),
}

DIMS = ["a + b", "b + a", "2*b + 1", "b*a", "b - 1", "b // 2", "b % 2", "3 - b", "a*a",
        "b*4", "(2*b) // 2", "(2*b + 4) // 2", "(2*b) % 2", "a*b + a + 1", "b - b",
        "a + b - a", "b**2", "(b + 1) // 2", "(b + 1) % 3", "a - 2*b", "b * (a + 1)",
        "b >= 1", "b > 0", "b >= 2", "b < 1", "a >= b", "2*b >= b", "b + 1 > b",
        "b == 1", "b != 1", "b == b", "a == b", "b % 2 >= 0", "b % 2 < 2", "b // 2 >= 0",
        "b - 1 >= 0", "b*a >= a", "b <= 10", "int(b)", "b ** -1"]
CONSTRAINED_DIMS = ["a >= b", "a - b >= 0", "a >= 1", "b >= a", "a + 1 > b"]
SPECS = ["b", "b, 4", "2*b, b + 1", "(b, 4)", "b - 1, mod(b, 2)", "max(a, b)", "b,",
         "b + c*d", "", "4, 5", "floordiv(b, 2)", "a, b//2", "b, ...", "3b"]


def symbolic_args(jax, export, specs, dtype, sizes, constraints):
    """A case's export arguments: symbolic shapes in one scope, concrete where unnamed."""
    scope = export.SymbolicScope(constraints)
    return [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), dtype)
            if s is not None else jax.ShapeDtypeStruct(sizes[0][i], dtype)
            for i, s in enumerate(specs)]


def _err(e):
    return {"error": type(e).__name__, "message": str(e).split("\n")[0]}


def main():
    import jax
    import jax.numpy as jnp
    from jax import export, lax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {"cases": {}, "errors": {}, "call_errors": {}, "dims": {}, "constrained": {},
           "specs": {}}
    fns = functions(jax, jnp, lax)
    for name, (specs, dtype, sizes, constraints) in CASES.items():
        args = symbolic_args(jax, export, specs, dtype, sizes, constraints)
        exp = export.export(jax.jit(fns[name]))(*args)
        case = {"in_avals": [str(a) for a in exp.in_avals],
                "out_avals": [str(a) for a in exp.out_avals],
                "artifact": base64.b64encode(exp.serialize()).decode(), "results": []}
        for shapes in sizes:
            xs = [np.arange(np.prod(s), dtype=dtype).reshape(s) % 7 for s in shapes]
            got = jax.tree_util.tree_leaves(exp.call(*xs))
            want = jax.tree_util.tree_leaves(fns[name](*xs))
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-5)
            case["results"].append([np.asarray(r).tolist() for r in got])
        if dtype == "float32":
            xs = [np.arange(np.prod(s), dtype=dtype).reshape(s) % 7 for s in sizes[0]]
            try:
                g = jax.grad(lambda a: jax.tree_util.tree_leaves(exp.call(a, *xs[1:]))[0].sum()
                             )(xs[0])
                case["grad"] = np.asarray(g).tolist()
            except Exception as e:  # noqa: BLE001  (stored: JAX's refusal)
                case["grad"] = _err(e)
        out["cases"][name] = case
    for name, (fn, specs) in error_functions(jax, jnp, lax).items():
        scope = export.SymbolicScope(("a >= b",) if name == "constrained_ok" else ())
        args = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), np.float32)
                for s in specs]
        try:
            export.export(jax.jit(fn))(*args)
            out["errors"][name] = {"error": None}
        except Exception as e:  # noqa: BLE001
            out["errors"][name] = _err(e)
    for name, (spec, shape, dtype) in CALL_ERRORS.items():
        exp = export.export(jax.jit(lambda x: x * 2))(
            jax.ShapeDtypeStruct(export.symbolic_shape(spec), np.float32))
        try:
            exp.call(np.ones(shape, dtype))
            out["call_errors"][name] = {"error": None}
        except Exception as e:  # noqa: BLE001
            out["call_errors"][name] = _err(e)
    a, b = export.symbolic_shape("a, b")
    for text in DIMS:
        try:
            out["dims"][text] = {"value": str(eval(text, {"a": a, "b": b}))}
        except Exception as e:  # noqa: BLE001
            out["dims"][text] = _err(e)
    a, b = export.symbolic_shape("a, b", constraints=("a >= b",))
    for text in CONSTRAINED_DIMS:
        try:
            out["constrained"][text] = {"value": str(eval(text, {"a": a, "b": b}))}
        except Exception as e:  # noqa: BLE001
            out["constrained"][text] = _err(e)
    for spec in SPECS:
        try:
            out["specs"][spec] = {"value": [str(d) for d in export.symbolic_shape(spec)]}
        except Exception as e:  # noqa: BLE001
            out["specs"][spec] = _err(e)
    path = Path(__file__).with_name("shape_poly.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {len(out['cases'])} cases, {len(out['errors'])} errors")


if __name__ == "__main__":
    sys.exit(main())
