"""More programs exported with symbolic shapes (JAX 0.10.2), stored for
tests/test_shape_poly_programs.py (see README.md): the `jnp` / `lax` operations a JAX
user applies to arrays of symbolic shape -- padding, slicing with symbolic bounds,
`arange` / `ones` / `eye` of symbolic sizes, `broadcast_to`, statistics over a
symbolic axis, loops whose trip count is a dimension, sorting, cumulative sums,
`vmap` and `grad` inside, and more.

`functions(jax, jnp, lax)` gives the functions; `CASES` their specifications, dtype
and the concrete shapes they are called with (tests/oracle/record_shape_poly.py's
format). Run with JAX 0.10.2: `/work/jaxref/bin/python
tests/oracle/record_shape_poly_programs.py` writes shape_poly_programs.json: per case
the printed `in_avals` / `out_avals`, the results at each size (checked equal to the
function's own) and JAX's serialized artifact (base64).
"""
import base64
import json
import sys
from pathlib import Path

import numpy as np


def functions(jax, jnp, lax):
    """name -> function (exported as `jax.jit(fn)`)."""
    def fori_sum(x):
        return lax.fori_loop(0, x.shape[0], lambda i, c: c + x[i] * i, 0.0)

    def while_count(x):
        def body(c):
            return c[0] + 1, c[1] + x[c[0]]
        return lax.while_loop(lambda c: c[0] < x.shape[0], body, (0, 0.0))[1]

    return {
        "pad": lambda x: jnp.pad(x, ((1, 2), (0, 1))),
        "ones_b_2b": lambda x: jnp.ones((x.shape[0], 2 * x.shape[0])) * x[:, :1],
        "broadcast_to": lambda x: jnp.broadcast_to(x, (3, x.shape[0])) * 2,
        "var_std": lambda x: (jnp.var(x, axis=0), jnp.std(x, axis=0)),
        "slice_half": lambda x: x[x.shape[0] // 2:] * 1.0,
        "slice_drop_last": lambda x: x[:x.shape[0] - 1] + x[1:],
        "slice_neg_sym": lambda x, y: x[:-y.shape[0]],
        "fori_symbolic": fori_sum,
        "while_symbolic": while_count,
        "cumsum": lambda x: (jnp.cumsum(x, axis=0), jnp.cumprod(x + 1, axis=1)),
        "argsort_sort": lambda x: (jnp.argsort(x), jnp.sort(x)),
        "reshape_pairs": lambda x: x.reshape(-1, 2).sum(axis=1),
        "flip": lambda x: jnp.flip(x, axis=0),
        "repeat_tile": lambda x: (jnp.repeat(x, 2), jnp.tile(x, 2)),
        "self_outer": lambda x: jnp.triu(x @ x.T),
        "eye": lambda x: jnp.eye(x.shape[0]) + x,
        "argmax_take": lambda x: x[jnp.argmax(x)] * x,
        "dynamic_slice": lambda x: lax.dynamic_slice_in_dim(x, 1, 2),
        "concat_const": lambda x: jnp.concatenate([x, jnp.zeros(3)]),
        "vmap_outer": lambda x: jax.vmap(jnp.outer)(x, x),
        "grad_cumsum": lambda x: jax.grad(lambda y: jnp.sum(jnp.cumsum(y) ** 2))(x),
        "arange_2b": lambda x: jnp.arange(2 * x.shape[0]).reshape(2, -1) + x,
        "expand_squeeze": lambda x: jnp.squeeze(jnp.expand_dims(x, 1), 1) + 1,
        "split_halves": lambda x: jnp.split(x, 2)[1] - jnp.split(x, 2)[0],
        "roll_diff": lambda x: (jnp.roll(x, 1), jnp.diff(x)),
        "softmax_axis0": lambda x: jax.nn.softmax(x, axis=0),
        "norm_rows": lambda x: jnp.linalg.norm(x, axis=1),
        "inner_symbolic": lambda x, y: x.T @ y,
        "mean_all": lambda x: x - jnp.mean(x),
        "where_cumsum": lambda x: jnp.where(jnp.arange(x.shape[0]) % 2 == 0, x, -x),
        "max_pool": lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (2,), "VALID"),
        "dim_expr_shape": lambda x: jnp.zeros((x.shape[0] // 2 + x.shape[0] % 2,)) + 1,
    }


# name -> (specs, dtype, [concrete shapes per argument, per size], constraints)
CASES = {
    "pad": (["b, 2"], "float32", [[(2, 2)], [(4, 2)]], ()),
    "ones_b_2b": (["b, 3"], "float32", [[(2, 3)], [(3, 3)]], ()),
    "broadcast_to": (["b"], "float32", [[(2,)], [(5,)]], ()),
    "var_std": (["b, 3"], "float32", [[(2, 3)], [(5, 3)]], ()),
    "slice_half": (["b"], "float32", [[(3,)], [(6,)]], ()),
    "slice_drop_last": (["b"], "float32", [[(3,)], [(6,)]], ()),
    "slice_neg_sym": (["a", "b"], "float32", [[(5,), (2,)], [(3,), (4,)]], ()),
    "fori_symbolic": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "while_symbolic": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "cumsum": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "argsort_sort": (["b"], "float32", [[(3,)], [(6,)]], ()),
    "reshape_pairs": (["2*b"], "float32", [[(4,)], [(8,)]], ()),
    "flip": (["b, 2"], "float32", [[(2, 2)], [(5, 2)]], ()),
    "repeat_tile": (["b"], "float32", [[(2,)], [(3,)]], ()),
    "self_outer": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "eye": (["b, b"], "float32", [[(2, 2)], [(3, 3)]], ()),
    "argmax_take": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "dynamic_slice": (["b"], "float32", [[(3,)], [(6,)]], ()),
    "concat_const": (["b"], "float32", [[(2,)], [(4,)]], ()),
    "vmap_outer": (["b"], "float32", [[(2,)], [(3,)]], ()),
    "grad_cumsum": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "arange_2b": (["b"], "float32", [[(2,)], [(3,)]], ()),
    "expand_squeeze": (["b, 2"], "float32", [[(2, 2)], [(3, 2)]], ()),
    "split_halves": (["2*b"], "float32", [[(4,)], [(6,)]], ()),
    "roll_diff": (["b"], "float32", [[(3,)], [(5,)]], ()),
    "softmax_axis0": (["b, 2"], "float32", [[(2, 2)], [(4, 2)]], ()),
    "norm_rows": (["b, 3"], "float32", [[(2, 3)], [(4, 3)]], ()),
    "inner_symbolic": (["b, 3", "b, 2"], "float32", [[(2, 3), (2, 2)], [(5, 3), (5, 2)]], ()),
    "mean_all": (["a, b"], "float32", [[(2, 3)], [(4, 1)]], ()),
    "where_cumsum": (["b"], "float32", [[(3,)], [(4,)]], ()),
    "max_pool": (["b"], "float32", [[(4,)], [(7,)]], ()),
    "dim_expr_shape": (["b"], "float32", [[(3,)], [(4,)]], ()),
}


def inputs(dtype, shapes):
    """The arguments a case is called with at one size."""
    return [(np.arange(np.prod(s), dtype=dtype).reshape(s) * 37 % 11 - 3).astype(dtype)
            for s in shapes]


def main():
    import jax
    import jax.numpy as jnp
    from jax import export, lax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    fns = functions(jax, jnp, lax)
    for name, (specs, dtype, sizes, constraints) in CASES.items():
        scope = export.SymbolicScope(constraints)
        args = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), dtype)
                for s in specs]
        try:
            exp = export.export(jax.jit(fns[name]))(*args)
        except Exception as e:  # noqa: BLE001  (kept: JAX's refusal)
            out[name] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
            print(name, out[name])
            continue
        case = {"in_avals": [str(a) for a in exp.in_avals],
                "out_avals": [str(a) for a in exp.out_avals],
                "artifact": base64.b64encode(exp.serialize()).decode(), "results": []}
        for shapes in sizes:
            xs = inputs(dtype, shapes)
            got = jax.tree_util.tree_leaves(exp.call(*xs))
            want = jax.tree_util.tree_leaves(fns[name](*map(jnp.asarray, xs)))
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-5)
            case["results"].append([np.asarray(r).tolist() for r in got])
        out[name] = case
    path = Path(__file__).with_name("shape_poly_programs.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {len(out)} cases")


if __name__ == "__main__":
    sys.exit(main())
