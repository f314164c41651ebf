"""Cases behind tests/test_eqx_suite_fixes.py (equinox's own test suite on astjax):
`jnp.array` / `jnp.copy` / `jnp.asarray` copying (printed jaxprs and whether the result
is the input object), and buffer donation (`@main`'s argument attributes, the
"Some donated buffers were not usable" warning, which inputs are deleted and whether a
result reuses the donated buffer), `lax.reduce_window` from a float identity on
integers, `ensure_compile_time_eval` inside `vmap`, `vmap` of unmapped arguments that
are not arrays, and the `perturbed` flags a symbolic-zeros `custom_vjp` fwd sees. Run under JAX 0.10.2
(`python tests/oracle/record_eqx_suite_fixes.py`) to write eqx_suite_fixes.json; run on
astjax by tests/test_eqx_suite_fixes.py."""
import io
import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("eqx_suite_fixes.json")


def copy_cases(jnp):
    """name -> function of one f32[3] array, for `make_jaxpr` and eager identity."""
    return {
        "array": lambda x: jnp.array(x),
        "array_nocopy": lambda x: jnp.array(x, copy=False),
        "array_dtype": lambda x: jnp.array(x, dtype=jnp.int32),
        "array_ndmin": lambda x: jnp.array(x, ndmin=2),
        "copy": lambda x: jnp.copy(x),
        "asarray": lambda x: jnp.asarray(x),
        "asarray_copy": lambda x: jnp.asarray(x, copy=True),
    }


def donation_cases(jnp):
    """name -> (function, donate_argnums, argument shapes)."""
    return {
        "same_shape": (lambda x: x + 1, (0,), [()]),
        "one_unusable": (lambda x, y: x + jnp.sum(y), (0, 1), [(), (10,)]),
        "by_size": (lambda x, y: (x.reshape(2, 5) * 2, y + 1), (0, 1), [(10,), ()]),
        "two_for_one": (lambda x, y: x + y, (0, 1), [(3,), (3,)]),
        "second_only": (lambda x, y: x + y, (1,), [(3,), (3,)]),
    }


def main_attributes(text):
    """The attribute text of each `@main` argument (None where it has none)."""
    sig = re.search(r"func\.func public @main\((.*?)\) ->", text).group(1)
    args = re.split(r", (?=%arg)", sig)
    return [(re.search(r"\{(.*)\}", a).group(1) if "{" in a else None) for a in args]


def _pool(jnp, x, size, op):
    """equinox's adaptive pooling step: `size` and `op` arrive unmapped and unstaged."""
    return jnp.stack([op(c) for c in jnp.split(x, size)])


def emit_python_callback_cases(jax):
    """A primitive lowered by a builder rule that calls back into Python with
    `mlir.emit_python_callback` (equinox's `noinline`): its value, eagerly, under `jit`,
    `vmap` of `jit` (the batching rule binds it again), and a callback returning the
    wrong dtype."""
    Primitive, jnp = jax.extend.core.Primitive, jax.numpy
    batching, mlir = jax.interpreters.batching, jax.interpreters.mlir

    def host_double(x):
        return (np.asarray(x) * 2,)

    def host_wrong(x):
        return (np.asarray(x, np.int32),)

    out = {}
    for name, host in (("double", host_double), ("wrong_dtype", host_wrong)):
        p = Primitive(f"eqx_fix_callback_{name}")
        p.def_abstract_eval(lambda x: x)
        p.def_impl(lambda x, _h=host: jnp.asarray(_h(x)[0]))
        batching.primitive_batchers[p] = lambda args, dims, _p=p: (_p.bind(args[0]), dims[0])

        def rule(ctx, x, _h=host):
            res, token, keep = mlir.emit_python_callback(
                ctx, _h, None, [x], ctx.avals_in, ctx.avals_out, has_side_effect=False)
            ctx.module_context.add_keepalive(keep)
            return res
        mlir.register_lowering(p, rule)
        x = jnp.arange(3.0)
        try:
            out[name] = [jax.jit(p.bind)(x).tolist(),
                         jax.vmap(jax.jit(p.bind))(x.reshape(3, 1)).tolist()]
        except Exception as e:   # (JAX's RuntimeError inside XLA's error)
            out[name] = ["error", "Incorrect output dtype for return value #0" in str(e)]
    return out


def misc_cases(jax):
    """name -> thunk returning a JSON-able result."""
    jnp, lax = jax.numpy, jax.lax
    x = jnp.arange(14).reshape(1, 14, 1)

    def known_inside_vmap(v):
        with jax.ensure_compile_time_eval():
            d = jnp.arange(3.0) / 4
            e = 1.0 / (10000.0 ** d)
            kinds.append([isinstance(d, jax.core.Tracer), isinstance(e, jax.core.Tracer)])
        return v

    kinds = []

    def perturbed():
        seen = []
        f = jax.custom_vjp(lambda x, n, c: x * n + c)
        f.defvjp(lambda x, n, c: (seen.append([x.perturbed, n.perturbed, c.perturbed])
                                  or (f(x.value, n.value, c.value), None)),
                 lambda res, g: (g, None, None), symbolic_zeros=True)
        g = jax.grad(lambda x, n: f(x, n, jnp.float32(2.0)))(jnp.float32(3.0), jnp.int32(2))
        return [float(g), seen, [type(p) is bool for p in seen[0]]]

    def python_residual():
        got = []
        f = jax.custom_vjp(lambda x: 2.0 * x)
        f.defvjp(lambda x: (2.0 * x, (True, 3, x)),
                 lambda res, g: (got.append([type(res[0]) is bool, isinstance(res[1], int)])
                                 or (g * res[1] if res[0] else g,)))
        return [float(jax.grad(lambda x: f(x) * x)(jnp.float32(2.0))), got]

    def load_bfloat16():
        buf = io.BytesIO()
        jnp.save(buf, jnp.array([2, 4], dtype="bfloat16"))
        buf.seek(0)
        out = jnp.load(buf)
        return [str(out.dtype), out.astype("float32").tolist()]

    def constants_under_compile_time_eval():
        kinds = []

        @jax.jit
        def f(x):
            with jax.ensure_compile_time_eval():
                consts = [jnp.array(0), jnp.asarray(True), jnp.array([1.0, 2.0]),
                          jnp.where(True, np.int32(0), np.int32(1))]
                kinds.extend([isinstance(c, jax.core.Tracer), str(c.dtype),
                              c.weak_type] for c in consts)
            return x
        f(1.0)
        return kinds

    def tangent_avals():
        vals = [jnp.ones(3), jnp.arange(3), jnp.bool_(True), 1.0, jax.random.key(0)]
        return [[[str(t.dtype), list(t.shape), t.weak_type] for t in (
            a.to_tangent_aval(), a.to_ct_aval(), a.at_least_vspace())]
            for a in map(jax.typeof, vals)]

    def eager_callback_errors():
        def boom(x):
            raise ValueError("boom")
        out = []
        s = jax.ShapeDtypeStruct((), jnp.float32)
        for call in (lambda x: jax.pure_callback(boom, s, x),
                     lambda x: jax.experimental.io_callback(boom, s, x),
                     lambda x: jax.pure_callback(lambda x: x, s, x),   # (f64 result)
                     lambda x: jax.debug.callback(boom, x)):
            try:
                call(jnp.float32(1.0))
                out.append("no error")
            except Exception as e:   # noqa: BLE001
                msg = str(e)
                out.append([type(e).__name__, isinstance(e, jax.errors.JaxRuntimeError),
                            msg.split(":")[0], "ValueError: boom" in msg])
        return out

    def custom_jvp_rebind():
        f = jax.custom_jvp(jnp.sin)
        f.defjvp(lambda p, t: (jnp.sin(p[0]), 2.0 * jnp.cos(p[0]) * t[0]))
        x, t = jnp.float32(0.5), jnp.float32(3.0)
        eqn = jax.make_jaxpr(f)(x).jaxpr.eqns[0]
        params = eqn.primitive.get_bind_params(eqn.params)
        fun, jvp = params["subfuns"]
        rebound = lambda y: eqn.primitive.bind(y, **params)[0]
        return [sorted(params), [float(v) for v in fun.call_wrapped(x)],
                [float(v) for v in jvp.call_wrapped(x, t)], float(rebound(x)),
                float(jax.jit(rebound)(x)), [float(v) for v in jax.jvp(rebound, (x,), (t,))],
                float(jax.grad(rebound)(x)),
                str(jax.make_jaxpr(rebound)(x).jaxpr.eqns[0].primitive)]

    return {
        "custom_jvp_rebind": custom_jvp_rebind,
        "eager_callback_errors": eager_callback_errors,
        "constants_under_compile_time_eval": constants_under_compile_time_eval,
        "tangent_avals": tangent_avals,
        "emit_python_callback": lambda: emit_python_callback_cases(jax),
        "custom_vjp_python_residual": python_residual,
        "load_bfloat16": load_bfloat16,
        "max_pool_int_from_neg_inf": lambda: lax.reduce_window(
            x, -jnp.inf, lax.max, (1, 2, 1), (1, 3, 1), "VALID").ravel().tolist(),
        "min_pool_int_from_inf": lambda: lax.reduce_window(
            x, float("inf"), lax.min, (1, 2, 1), (1, 3, 1), "VALID").ravel().tolist(),
        "sum_pool_float_from_int_zero": lambda: lax.reduce_window(
            jnp.arange(6.0), 0, lax.add, (2,), (2,), "VALID").tolist(),
        "compile_time_eval_in_vmap": lambda: (jax.vmap(known_inside_vmap)(jnp.ones(2)),
                                              kinds)[1],
        "vmap_unmapped_objects": lambda: jax.vmap(
            lambda x, n, op: _pool(jnp, x, n, op), (0, None, None))(
                jnp.arange(12.0).reshape(3, 4), 2, jnp.max).tolist(),
        "vmap_unmapped_scalar_is_python": lambda: jax.vmap(
            lambda x, n: x.reshape(n, -1).sum(0), (0, None))(
                jnp.arange(12.0).reshape(3, 4), 2).tolist(),
        "custom_vjp_perturbed": perturbed,
    }


def run(jax):
    jnp = jax.numpy
    out = {"copy": {}, "donation": {}}
    x = jnp.arange(3.0)
    for name, f in copy_cases(jnp).items():
        out["copy"][name] = {"jaxpr": str(jax.make_jaxpr(f)(x)), "is_input": f(x) is x}
    for name, (f, donate, shapes) in donation_cases(jnp).items():
        jf = jax.jit(f, donate_argnums=donate)
        args = [jnp.ones(s) for s in shapes]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            text = jf.lower(*args).as_text()
        ptrs = [a.unsafe_buffer_pointer() for a in args]
        res = jax.tree_util.tree_leaves(jf(*args))
        out["donation"][name] = {
            "attributes": main_attributes(text),
            "warnings": [str(m.message) for m in w if "donated" in str(m.message)],
            "deleted": [a.is_deleted() for a in args],
            "reused": [r.unsafe_buffer_pointer() in ptrs for r in res],
        }
    out["misc"] = {name: _outcome(f) for name, f in misc_cases(jax).items()}
    return out


def _outcome(thunk):
    """The case's result, or the exception it raised (so each case fails alone)."""
    try:
        return thunk()
    except Exception as e:   # noqa: BLE001  (recorded, compared with JAX's result)
        return {"raised": f"{type(e).__name__}: {e}"[:300]}


if __name__ == "__main__":
    import jax
    import jax.experimental  # noqa: F401  (the submodules the cases reach as attributes)
    import jax.extend.core  # noqa: F401
    import jax.interpreters.batching  # noqa: F401
    import jax.interpreters.mlir  # noqa: F401
    if not jax.__file__.endswith("jax/__init__.py") or "astjax" in jax.__file__:
        sys.exit("run under real JAX 0.10.2")
    PATH.write_text(json.dumps(run(jax), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}")
