"""Custom derivative rules inside a `shard_map(..., check_vma=True)` body, where JAX
types cotangents by their varying manual axes: a `grad` taken inside a `custom_jvp` /
`custom_vjp` function or inside its rules (`jvp`, `fwd`, `bwd`; also when the body
is differentiated from outside), the gradient of a
custom function whose output is invariant over an axis (its `bwd` gets JAX's reduced
cotangent) or whose input is, through the shard_map boundary too, JAX's errors for a
`bwd` cotangent typed otherwise than its input and for a `jvp` rule's tangent varying
where its primal output does not; and `lax.custom_linear_solve` /
`lax.custom_root` under `grad`, `vjp` and `linear_transpose` inside a body. Per case the
value of the jitted shard_map (or JAX's error). Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_vma_custom.py`) to write vma_custom.json; run on astjax by
tests/test_vma_custom.py."""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent.parent))
from oracle import record_vma_reverse as rev  # noqa: E402

PATH = Path(__file__).with_name("vma_custom.json")


def _customs(jax):
    """The custom functions the cases use (fresh per call: the rules close over
    nothing but their arguments)."""
    lax, jnp = jax.lax, jax.numpy
    g = jax.grad

    def inner(u):               # a grad taken inside: of a psum, typed (2u)
        return g(lambda w: lax.psum(w * w, "x").sum())(u)

    c = {}
    c["jvp_grad_primal"] = f = jax.custom_jvp(lambda z: inner(z))
    f.defjvp(lambda p, t, f=f: (f(p[0]), t[0]))
    # (a rule whose primal output is invariant over 'x' (a psum) where its tangent
    # varies: JAX's TypeError)
    c["jvp_rule_typed_otherwise"] = f = jax.custom_jvp(lambda z: z * 1.0)
    f.defjvp(lambda p, t: (lax.psum(p[0], "x"), t[0]))
    c["jvp_grad_rule"] = f = jax.custom_jvp(jnp.sin)
    f.defjvp(lambda p, t: (jnp.sin(p[0]), t[0] * inner(p[0])))
    c["jvp_psum"] = f = jax.custom_jvp(lambda z: lax.psum(z, "x"))
    f.defjvp(lambda p, t: (lax.psum(p[0], "x"), lax.psum(t[0], "x") * 3.0))

    c["vjp_grad_primal"] = f = jax.custom_vjp(lambda z: inner(z))
    f.defvjp(lambda z: (inner(z), z), lambda r, ct: (ct * r,))
    c["vjp_psum"] = f = jax.custom_vjp(lambda z: lax.psum(z, "x"))
    f.defvjp(lambda z: (lax.psum(z, "x"), None),
             lambda r, ct: (lax.pcast(ct * 3.0, "x", to="varying"),))
    c["vjp_local"] = f = jax.custom_vjp(lambda z: z * 2.0)
    f.defvjp(lambda z: (z * 2.0, None), lambda r, ct: (ct * 5.0,))
    c["vjp_grad_fwd"] = f = jax.custom_vjp(jnp.sin)
    f.defvjp(lambda z: (jnp.sin(z), inner(z)), lambda r, ct: (ct * r,))
    c["vjp_grad_bwd"] = f = jax.custom_vjp(jnp.sin)
    f.defvjp(lambda z: (jnp.sin(z), z), lambda r, ct: (ct * inner(r),))
    c["vjp_bwd_invariant_ct"] = f = jax.custom_vjp(lambda z: lax.psum(z, "x"))
    f.defvjp(lambda z: (lax.psum(z, "x"), None), lambda r, ct: (ct,))
    return c


def cases(jax):
    """name -> (body, in_specs, out_specs, mesh name) of a jitted shard_map run on as
    many copies of `rev.X` as it has in_specs (`rev.smap`)."""
    lax, jnp = jax.lax, jax.numpy
    P = jax.sharding.PartitionSpec
    g = jax.grad
    xy, y_ = P("x", "y"), P(None, "y")
    c = _customs(jax)
    idx = lambda: lax.axis_index("x").astype(jnp.float32) + 1.0  # noqa: E731

    def vjp_psum(z):
        out, f = jax.vjp(c["vjp_psum"], z)
        return f(out * 2.0)[0]

    def mv(x):                      # a local symmetric linear map and its inverse
        return 2.0 * x

    def solve(_, b):
        return b / 2.0

    def lsolve(b):
        return lax.custom_linear_solve(mv, b, solve, symmetric=True)

    def lsolve_t(b):
        return lax.custom_linear_solve(mv, b, solve, transpose_solve=solve)

    def root(a, typed=True):        # sqrt(a) by Newton iteration, differentiated implicitly
        f = lambda x: x * x - a     # noqa: E731
        newton = lambda f, x0: lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2.0 * x), x0)  # noqa: E731
        if not typed:   # (an invariant 1.0 where the tangent varies: JAX's ValueError)
            return lax.custom_root(f, jnp.ones_like(a), newton, lambda gf, y: y / gf(1.0))
        return lax.custom_root(f, a * 0.0 + 1.0, newton, lambda gf, y: y / gf(a * 0.0 + 1.0))

    return {
        "grad_in_custom_jvp_primal": (c["jvp_grad_primal"], xy, xy, "2x2"),
        "grad_of_custom_jvp_grad_primal": (
            lambda a: g(lambda z: (c["jvp_grad_primal"](z) * z).sum())(a), xy, xy, "2x2"),
        "grad_of_custom_jvp_rule_typed_otherwise": (
            lambda a: g(lambda z: (c["jvp_rule_typed_otherwise"](z) * z).sum())(a), xy, xy,
            "2x2"),
        "grad_in_custom_jvp_rule": (lambda a: g(lambda z: c["jvp_grad_rule"](z).sum())(a),
                                    xy, xy, "2x2"),
        "jvp_custom_jvp_grad_rule": (lambda a: jax.jvp(c["jvp_grad_rule"], (a,), (a,))[1],
                                     xy, xy, "2x2"),
        "grad_of_custom_jvp_psum": (lambda a: g(lambda z: (c["jvp_psum"](z) ** 2).sum())(a),
                                    xy, xy, "2x2"),
        "grad_in_custom_vjp_primal": (c["vjp_grad_primal"], xy, xy, "2x2"),
        "grad_of_custom_vjp_grad_primal": (
            lambda a: g(lambda z: c["vjp_grad_primal"](z).sum())(a), xy, xy, "2x2"),
        "grad_of_custom_vjp_psum": (lambda a: g(lambda z: (c["vjp_psum"](z) ** 2).sum())(a),
                                    xy, xy, "2x2"),
        "vjp_of_custom_vjp_psum": (vjp_psum, xy, xy, "2x2"),
        "grad_of_custom_vjp_invariant_input": (
            lambda a: g(lambda z: (c["vjp_local"](z) * idx()).sum())(a), y_, y_, "2x2"),
        "grad_of_custom_vjp_invariant_output": (
            lambda a: g(lambda z: (c["vjp_local"](lax.psum(z, "x")) * idx()).sum())(a),
            xy, xy, "2x2"),
        "grad_in_custom_vjp_fwd": (lambda a: g(lambda z: c["vjp_grad_fwd"](z).sum())(a),
                                   xy, xy, "2x2"),
        "grad_in_custom_vjp_bwd": (lambda a: g(lambda z: c["vjp_grad_bwd"](z).sum())(a),
                                   xy, xy, "2x2"),
        "err_bwd_invariant_cotangent": (
            lambda a: g(lambda z: c["vjp_bwd_invariant_ct"](z).sum())(a), xy, xy, "2x2"),
        "grad_linear_solve": (lambda a: g(lambda b: (lax.psum(lsolve(b), "x") ** 2).sum())(a),
                              xy, xy, "2x2"),
        "grad_linear_solve_invariant": (
            lambda a: g(lambda b: (lsolve_t(b) * idx()).sum())(a), y_, y_, "2x2"),
        "grad_linear_solve_of_psum": (
            lambda a: g(lambda b: (lsolve(lax.psum(b, "x")) * idx()).sum())(a), xy, xy, "2x2"),
        "vjp_linear_solve": (lambda a: jax.vjp(lsolve_t, lax.psum(a, "x"))[1](a)[0],
                             xy, xy, "2x2"),
        "linear_transpose_linear_solve": (
            lambda a: jax.linear_transpose(lsolve, a)(a * idx())[0], xy, xy, "2x2"),
        "linear_transpose_linear_solve_invariant": (
            lambda a: jax.linear_transpose(lsolve_t, a)(a * 2.0)[0], y_, y_, "2x2"),
        "grad_custom_root": (lambda a: g(lambda b: (lax.psum(root(b), "x") ** 2).sum())(a),
                             xy, xy, "2x2"),
        "grad_custom_root_invariant": (
            lambda a: g(lambda b: (root(b) * idx()).sum())(a), y_, y_, "2x2"),
        "err_custom_root_untyped_tangent_solve": (
            lambda a: g(lambda b: root(b, False).sum())(a), xy, xy, "2x2"),
        "vjp_custom_root_of_psum": (
            lambda a: jax.vjp(lambda b: root(lax.psum(b, "x")), a)[1](lax.psum(a, "x"))[0],
            xy, xy, "2x2"),
    }


def boundary_cases(jax):
    """name -> a function of X: a gradient taken outside the shard_map of a body that
    calls a custom function (and one of `custom_root` without a shard_map)."""
    lax, jnp, P = jax.lax, jax.numpy, jax.sharding.PartitionSpec
    c = _customs(jax)
    mesh = rev.meshes(jax)["2x2"]

    def through(name, out=P(None, "y")):
        f = jax.shard_map(c[name], mesh=mesh, in_specs=P("x", "y"), out_specs=out)
        return jax.jit(jax.grad(lambda a: (f(a) ** 2).sum()))
    return {"custom_vjp_psum": through("vjp_psum"), "custom_jvp_psum": through("jvp_psum"),
            # a grad inside the rules, which run when the body is differentiated
            "custom_vjp_grad_fwd": through("vjp_grad_fwd", P("x", "y")),
            "custom_vjp_grad_bwd": through("vjp_grad_bwd", P("x", "y")),
            "custom_jvp_grad_rule": through("jvp_grad_rule", P("x", "y")),
            # no shard_map: a tangent_solve calling the linearized f on a Python scalar
            "custom_root_scalar_tangent_no_body": jax.grad(lambda a: lax.custom_root(
                lambda x: x * x - a, jnp.ones_like(a),
                lambda f, x0: lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2.0 * x), x0),
                lambda gf, y: y / gf(1.0)).sum())}


def run_boundary(fn):
    try:
        return {"value": [np.asarray(fn(rev.X)).tolist()]}
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return rev._error(e)


def record(jax):
    out = {k: rev.run(jax, c) for k, c in cases(jax).items()}
    out.update({f"boundary/{k}": run_boundary(f) for k, f in boundary_cases(jax).items()})
    return out


if __name__ == "__main__":
    import jax
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps(record(jax), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
