"""Reverse mode taken *inside* a `shard_map(..., check_vma=True)` body, where JAX types
every cotangent by its varying manual axes (`psum`'s transpose is a `pvary`, the
implicit `pvary` of an invariant operand transposes to a `psum`): `grad`,
`value_and_grad`, `vjp`, `jacrev`, `linear_transpose` and a second-order `grad`, over
invariant and varying operands, through `psum`, `pmean`, `pmax`, `all_gather` (varying
and invariant), `psum_scatter`, `ppermute`, `all_to_all` and `axis_index`, on a 2x2
mesh (partially manual too) and a 4-device line, inside loop, branch, vmap and jit
bodies; a function through the shard_map boundary; `lax.all_gather(..., to='reduced')`
(JAX's Reduced type). Per case the value of the jitted shard_map (or JAX's error), and
the printed `make_jaxpr` of each that JAX runs. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_vma_reverse.py`) to write vma_reverse.json; run on astjax by
tests/test_vma_reverse.py."""
import json
import sys
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("vma_reverse.json")
X = (np.arange(16.0, dtype=np.float32).reshape(4, 4) % 7) / 4 + 0.5


def cases(jax):
    """name -> (body, in_specs, out_specs, mesh name[, check_vma[, axis_names]]) of a
    jitted shard_map run on as many copies of X as it has in_specs."""
    lax, jnp = jax.lax, jax.numpy
    P = jax.sharding.PartitionSpec
    g = jax.grad
    xy, y_, x_, none = P("x", "y"), P(None, "y"), P("x"), P()
    swap = [(0, 1), (1, 0)]

    def hvp(z):
        return g(lambda u: g(lambda w: (lax.psum(w, "x") ** 2).sum())(u).sum() ** 2)(z)

    def vjp_psum(z):
        out, f = jax.vjp(lambda w: lax.psum(jnp.sin(w), "x"), z)
        return f(out * 2.0)[0]

    def vjp_invariant_in(z, w):
        out, f = jax.vjp(lambda u: jnp.sin(u[:2]) * w, z)
        return f(jnp.ones_like(out))[0]

    def vjp_varying_ct(z):      # the cotangent of an invariant output is varying
        out, f = jax.vjp(lambda w: lax.psum(w, "x"), z)
        return f(z)[0]
    def in_scan(a):             # a gradient taken inside a loop body
        return lax.scan(lambda c, _: (c + g(lambda z: lax.psum(z, "x").sum())(c), None), a,
                        None, length=2)[0]

    def in_while(a):
        return lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] + g(
            lambda z: (lax.psum(z, "x") * c[1]).sum())(c[1])), (0, a))[1]

    def in_cond(a):             # a predicate varying over both axes
        return lax.cond(a.sum() > 5, lambda c: g(lambda z: lax.psum(z * z, "y").sum())(c),
                        lambda c: c, a)

    def in_python_loop(a):      # JAX unrolls it; astjax stages a scan
        for _ in range(2):
            a = a * g(lambda z: lax.pmean(jnp.sin(z), "x").sum())(a)
        return a

    def in_python_if(a):        # JAX needs a static predicate; astjax stages a cond
        if a.shape[0] > 1:
            a = g(lambda z: lax.psum(z * z, "y").sum())(a)
        return a

    def in_custom_jvp(a):
        f = jax.custom_jvp(lambda z: g(lambda u: lax.psum(u * u, "x").sum())(z))
        f.defjvp(lambda p, t: (f(p[0]), t[0]))
        return f(a)

    def of_python_loop_rows(a):     # of each row (astjax: a scan over the rows)
        acc = a[0] * 0.0            # (varying: a scan's carry keeps its type)
        for row in a:
            acc = acc + g(lambda z: lax.psum(z * z, "x").sum())(row)
        return acc[None]

    return {
        "grad_psum": (lambda a: g(lambda z: lax.psum(z, "x").sum())(a), xy, xy, "2x2"),
        "grad_psum_unchecked": (lambda a: g(lambda z: lax.psum(z, "x").sum())(a), xy, xy,
                                "2x2", False),
        "grad_partial_manual": (lambda a: g(lambda z: (lax.psum(z, "x") ** 2).sum())(a),
                                x_, x_, "2x2", True, {"x"}),
        "grad_partial_manual_invariant": (lambda a, b: g(lambda z: (jnp.sin(z[:2]) * b).sum())(
            a), (none, x_), none, "2x2", True, {"x"}),
        "grad_in_scan": (in_scan, xy, xy, "2x2"),
        "grad_in_while": (in_while, xy, xy, "2x2"),
        "grad_in_cond": (in_cond, xy, xy, "2x2"),
        "grad_in_python_loop": (in_python_loop, xy, xy, "2x2"),
        "grad_in_python_if": (in_python_if, xy, xy, "2x2"),
        "grad_in_custom_jvp": (in_custom_jvp, xy, xy, "2x2"),
        "vmap_of_grad": (lambda a: jax.vmap(g(lambda u: (lax.psum(u, "x") ** 2).sum()))(a),
                         xy, xy, "2x2"),
        "grad_in_jit": (lambda a: jax.jit(g(lambda u: (lax.psum(u, "x") ** 2).sum()))(a),
                        xy, xy, "2x2"),
        "grad_of_python_loop_rows": (of_python_loop_rows, xy, xy, "2x2"),
        "grad_psum_both": (lambda a: g(lambda z: lax.psum(z, ("x", "y")).sum())(a),
                           xy, xy, "2x2"),
        "grad_psum_squared": (lambda a: g(lambda z: (lax.psum(z, "x") ** 2).sum())(a),
                              xy, xy, "2x2"),
        "grad_pmean": (lambda a: g(lambda z: (jnp.sin(lax.pmean(z, "y")) * 3).sum())(a),
                       xy, xy, "2x2"),
        "grad_pmax": (lambda a: g(lambda z: lax.pmax(z * z, "x").sum())(a), xy, xy, "2x2"),
        "grad_invariant_operand": (lambda a: g(lambda z: (z * lax.axis_index("x").astype(
            jnp.float32)).sum())(a), y_, y_, "2x2"),
        "grad_invariant_and_varying": (lambda a, b: g(lambda z, w: (jnp.sin(z[:2]) * w).sum(),
                                                      argnums=(0, 1))(a, b),
                                       (y_, xy), (y_, xy), "2x2"),
        "grad_closed_over_varying": (lambda a, b: g(lambda z: (jnp.cos(z[:2]) * b).sum())(a),
                                     (y_, xy), y_, "2x2"),
        "grad_invariant_only": (lambda a: g(lambda z: jnp.sin(z).sum())(a), y_, y_, "2x2"),
        "grad_fully_invariant": (lambda a: g(lambda z: (z * z).sum())(a), none, none, "2x2"),
        "grad_all_gather": (lambda a: g(lambda z: (lax.all_gather(z, "x", tiled=True) ** 2)
                                        .sum())(a), xy, xy, "2x2"),
        "grad_all_gather_of_invariant": (lambda a: g(lambda z: (lax.all_gather(
            z, "x", tiled=True) * lax.axis_index("x")).sum())(a), y_, y_, "2x2"),
        "grad_all_gather_invariant": (lambda a: g(lambda z: lax.all_gather(
            z, "x", to="invarying", tiled=True).sum())(a), xy, xy, "2x2"),
        "grad_all_gather_invariant_times": (lambda a: g(lambda z: (lax.all_gather(
            z, "x", to="invarying", tiled=True)[:2] * z).sum())(a), xy, xy, "2x2"),
        "grad_psum_scatter": (lambda a: g(lambda z: (lax.psum_scatter(
            z, "x", tiled=True) ** 2).sum())(a), xy, xy, "2x2"),
        "grad_psum_scatter_of_invariant": (lambda a: g(lambda z: (lax.psum_scatter(
            z, "x", tiled=True) ** 2).sum())(a), y_, y_, "2x2"),
        "grad_ppermute": (lambda a: g(lambda z: (lax.ppermute(z, "x", swap) * z).sum())(a),
                          xy, xy, "2x2"),
        "grad_all_to_all": (lambda a: g(lambda z: (lax.all_to_all(z, "x", 0, 1, tiled=True)
                                                   * jnp.arange(4.0)).sum())(a),
                            xy, xy, "2x2"),
        "grad_axis_index_both": (lambda a: g(lambda z: lax.psum(z * (1 + lax.axis_index(
            ("x", "y"))), ("x", "y")).sum())(a), none, none, "2x2"),
        "grad_line": (lambda a: g(lambda z: (lax.psum(z, "x") * z[:1]).sum())(a),
                      x_, x_, "line"),
        "grad_line_invariant": (lambda a: g(lambda z: (z * lax.axis_index("x")).sum())(a),
                                none, none, "line"),
        "value_and_grad_pmean": (lambda a: jax.value_and_grad(lambda z: lax.pmean(
            z, ("x", "y")).sum())(a), xy, (none, xy), "2x2"),
        "grad_has_aux": (lambda a: g(lambda z: (lax.psum(z, "x").sum(), z * 2),
                                     has_aux=True)(a), xy, (xy, xy), "2x2"),
        "grad_second_order": (hvp, xy, xy, "2x2"),
        "vjp_psum": (vjp_psum, xy, xy, "2x2"),
        "vjp_invariant_input": (vjp_invariant_in, (y_, xy), y_, "2x2"),
        "vjp_varying_cotangent": (vjp_varying_ct, xy, xy, "2x2"),
        "linear_transpose_psum": (lambda a: jax.linear_transpose(lambda z: lax.psum(
            z, "x"), a)(lax.psum(a, "x"))[0], xy, xy, "2x2"),
        "linear_transpose_invariant_input": (lambda a, b: jax.linear_transpose(
            lambda z: z[:2] * b, a)(b)[0], (y_, xy), y_, "2x2"),
        "implicit_pvary": (lambda a, b: (a[:2] * lax.axis_index("x").astype(jnp.float32)
                                         + 2.0) * jnp.sin(b), (y_, xy), xy, "2x2"),
        "jacrev_psum": (lambda a: jax.jacrev(lambda z: lax.psum(z[0], "x"))(a), xy,
                        P(None, "x", "y"), "2x2"),
        "jacrev_invariant_input": (lambda a, b: jax.jacrev(lambda z: jnp.sin(z[0]) * b[0])(
            a), (y_, xy), P("x", None, "y"), "2x2"),
    }


def _error(e):
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def meshes(jax):
    """The meshes the cases name."""
    auto = jax.sharding.AxisType.Auto
    return {"2x2": jax.make_mesh((2, 2), ("x", "y"), axis_types=(auto, auto)),
            "line": jax.make_mesh((4,), ("x",), axis_types=(auto,))}


def smap(jax, case):
    """The jitted shard_map of a case and its arguments."""
    body, in_specs, out_specs, mesh, *rest = case
    n = len(in_specs) if isinstance(in_specs, tuple) else 1
    kw = {"axis_names": rest[1]} if len(rest) > 1 else {}
    f = jax.shard_map(body, mesh=meshes(jax)[mesh], in_specs=in_specs, out_specs=out_specs,
                      check_vma=rest[0] if rest else True, **kw)
    return f, [X] * n


def run(jax, case):
    """The case's value(s) as nested lists, or its error."""
    f, args = smap(jax, case)
    try:
        out = jax.jit(f)(*args)
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return _error(e)
    return {"value": [np.asarray(o).tolist() for o in jax.tree_util.tree_leaves(out)]}


def printed(jax, case):
    """`str(make_jaxpr(shard_map(...)))` of a case."""
    f, args = smap(jax, case)
    return str(jax.make_jaxpr(f)(*args))


def boundary(jax):
    """The gradient of a body with a psum taken from outside, through the boundary."""
    P = jax.sharding.PartitionSpec
    f = jax.shard_map(lambda z: jax.lax.psum(z, "x").sum(keepdims=True),
                      mesh=meshes(jax)["2x2"], in_specs=P("x", "y"), out_specs=P("y"))
    return np.asarray(jax.jit(jax.grad(lambda a: (f(a) ** 2).sum()))(X)).tolist()


def reduced_cases(jax):
    """name -> (body, out_spec, mesh name) of `lax.all_gather(..., to='reduced')` (JAX's
    Reduced type: an Explicit mesh; an out_spec's reduced axes must be the value's)."""
    lax, P = jax.lax, jax.sharding.PartitionSpec

    def gather(to):
        return lambda a: lax.all_gather(a, "x", to=to, tiled=True)
    red = P(None, "y", reduced={"x"})
    return {
        "reduced": (gather("reduced"), red, "explicit"),
        "reduced_then_sin": (lambda a: jax.numpy.sin(gather("reduced")(a)), red, "explicit"),
        "invariant_as_reduced": (gather("invarying"), red, "explicit"),
        "reduced_as_replicated": (gather("reduced"), P(None, "y"), "explicit"),
        "reduced_on_auto_mesh": (gather("reduced"), red, "2x2"),
    }


def run_reduced(jax, case):
    """The value, layout and gathered value's type of a `reduced_cases` case, or its
    error."""
    body, out_spec, mesh = case
    m = jax.make_mesh((2, 2), ("x", "y")) if mesh == "explicit" else meshes(jax)[mesh]
    seen = {}

    def typed(a):
        r = body(a)
        seen["typeof"] = str(jax.typeof(r))
        return r
    P = jax.sharding.PartitionSpec
    try:
        x = jax.device_put(X, jax.sharding.NamedSharding(m, P("x", "y")))
        r = jax.jit(jax.shard_map(typed, mesh=m, in_specs=P("x", "y"), out_specs=out_spec))(x)
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return _error(e)
    return {"value": np.asarray(r).tolist(), "spec": repr(r.sharding.spec), **seen}


def record(jax):
    out = {k: run(jax, c) for k, c in cases(jax).items()}
    out["boundary/grad_psum_squared"] = boundary(jax)
    out.update({f"reduced/{k}": run_reduced(jax, c) for k, c in reduced_cases(jax).items()})
    out.update({f"jaxpr/{k}": printed(jax, c) for k, c in cases(jax).items()
                if "error" not in out[k]})
    return out


if __name__ == "__main__":
    import jax
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps(record(jax), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
