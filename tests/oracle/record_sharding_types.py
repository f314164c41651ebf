"""Issue 15's last items against JAX 0.10.2 on 4 CPU devices: unreduced / reduced axes
(`P(..., unreduced={'y'})`, `NamedSharding` with them, `dot_general(out_sharding=)`
making an unreduced value, `reshard` reducing it, the printed types and JAX's errors
for misuse), the varying manual axes of values inside `shard_map`
(`jax.typeof(x)` printed `float32[2,2]{V:(x,y)}`, `.mat.varying`, the body's printed
types), shard_map's in_specs check on Explicit meshes, `pmap(f).lower` /
`jit(pmap(f)).lower`, and `make_jaxpr`'s sharded types (of `grad` too: the backward
pass's layouts, `typeof` inside the differentiated function).

Per case a text (a repr, printed types, annotations of lowered text) or the error
(builtin class and message). Run on real JAX 0.10.2 to record `sharding_types.json`
(`python tests/oracle/record_sharding_types.py` with `jax_num_cpu_devices=4`), and
on astjax by tests/test_sharding_types.py."""
import json
import re
import sys
from pathlib import Path

import numpy as np

# a variable and its type in a printed jaxpr: `c:f32[4@x,4]{U:y}`
_BINDER = re.compile(r"(?<![\w'\"])[a-z]+:([a-z][a-z0-9]*\[[^\s\]]*\](?:\{[^}]*\})?)")
# a Shardy layout in lowered text: `<@mesh, [{"x"}, {}], unreduced={"y"}>`
_SDY = re.compile(r"<@mesh, \[[^\]]*\](?:, unreduced=\{[^}]*\})?>")


def binder_types(text):
    """The types of a printed jaxpr's variables, in order."""
    return " ".join(_BINDER.findall(str(text)))


def cases(jax):
    """name -> a function of no arguments returning a text (4 devices)."""
    jnp, lax = jax.numpy, jax.lax
    P = jax.sharding.PartitionSpec
    NS = jax.sharding.NamedSharding
    Auto = jax.sharding.AxisType.Auto
    mesh = jax.make_mesh((2, 2), ("x", "y"))                       # Explicit
    amesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(Auto, Auto))
    x = np.arange(16., dtype=np.float32).reshape(4, 4)
    u_spec = P("x", unreduced={"y"})

    def put(spec):
        return jax.device_put(x, NS(mesh, spec))

    def under_mesh(f):
        def g():
            with jax.set_mesh(mesh):
                return f()
        return g

    def dot_u(a, b):
        return jnp.dot(a, b, out_sharding=P("x", None, unreduced={"y"}))

    def dot_reduced(a, b):
        return jax.reshard(dot_u(a, b), P("x", None))

    ab = (lambda: put(P("x", "y")), lambda: put(P("y", None)))

    def on_ab(f):
        return under_mesh(lambda: f(ab[0](), ab[1]()))

    seen = []

    def body(a, c):
        s = lax.psum(a, "x")
        i = lax.axis_index("y")
        for v in (a, s, i, c, s * c, s + i):
            t = jax.typeof(v)
            seen.append(f"{t} {sorted(t.mat.varying)}")
        return s + c

    def vma(check):
        def run():
            seen.clear()
            f = jax.shard_map(body, mesh=amesh, in_specs=(P("x", "y"), P()),
                              out_specs=P(None, "y"), check_vma=check)
            out = jax.jit(f)(x, np.float32(1))
            return " | ".join(seen) + f" | sum={float(np.asarray(out).sum())}"
        return run

    def body_types(check):
        def run():
            f = jax.shard_map(body, mesh=amesh, in_specs=(P("x", "y"), P()),
                              out_specs=P(None, "y"), check_vma=check)
            text = str(jax.make_jaxpr(f)(x, np.float32(1)))
            line = next(ln for ln in text.splitlines() if "jaxpr={ lambda" in ln)
            return binder_types(line)
        return run

    def manual_sharding():
        seen.clear()
        jax.jit(jax.shard_map(lambda a: (seen.append(repr(jax.typeof(a).sharding)), a)[1],
                              mesh=amesh, in_specs=P("x"), out_specs=P("x")))(x)
        return seen[0]

    def sm_u(f, out_spec, infer=False, **kw):
        seen.clear()

        def g(v):
            seen.append(str(jax.typeof(v)))
            out = f(v)
            seen.append(str(jax.typeof(out)))
            return out
        specs = {} if infer else {"in_specs": P("x", unreduced={"y"})}
        out = jax.jit(jax.shard_map(g, mesh=mesh, out_specs=out_spec, **specs, **kw))(
            put(u_spec))
        shown = (repr(np.asarray(out).tolist()) if not out.sharding.spec.unreduced
                 else repr(out.sharding))
        return " ".join(seen) + " | " + shown

    def sm(in_spec, arg, m=mesh, **kw):
        return jax.shard_map(lambda v: v, mesh=m, in_specs=in_spec, out_specs=in_spec, **kw)

    def pmapped():
        return jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")

    def main_line(lowered):
        return next(ln.strip() for ln in lowered.as_text().splitlines() if "func.func" in ln)

    ones = np.ones((4, 3), np.float32)

    def mlp(w, v):
        h = jnp.tanh(v @ w)
        seen.append(str(jax.typeof(h)))
        return (h ** 2).sum()

    def mlp_args():
        return (jax.device_put(np.ones((4, 6), np.float32), NS(mesh, P(None, "y"))),
                jax.device_put(np.ones((8, 4), np.float32), NS(mesh, P("x", None))))

    def grad_types():
        seen.clear()
        text = str(jax.make_jaxpr(jax.grad(mlp))(*mlp_args()))
        return (" ".join(sorted({t for t in _BINDER.findall(text) if "@" in t}))
                + " | " + " ".join(seen))

    def grad_jit():
        seen.clear()
        g = jax.jit(jax.grad(mlp))(*mlp_args())
        return f"{jax.typeof(g)} {g.sharding.spec!r} | " + " ".join(seen)
    return {
        # PartitionSpec
        "p_repr_u": lambda: repr(P("x", unreduced={"y"})),
        "p_repr_r": lambda: repr(P(None, reduced={"y"})),
        "p_repr_ur": lambda: repr(P(unreduced={"y"}, reduced={"x"})),
        "p_repr_tuple": lambda: repr(P(("x",), None, unreduced={"y"})),
        "p_overlap": lambda: repr(P("x", unreduced={"x"})),
        "p_ur_overlap": lambda: repr(P(unreduced={"x"}, reduced={"x"})),
        "p_list": lambda: repr(P(unreduced=["x"])),
        "p_none": lambda: repr(P(unreduced={None})),
        "p_getitem": lambda: repr(P("x", unreduced={"y"})[0]),
        "p_iter": lambda: repr(tuple(P("x", unreduced={"y"}))),
        "p_len_partitions": lambda: f"{len(u_spec)} {u_spec.partitions!r}",
        "p_eq": lambda: f"{P('x', unreduced={'y'}) == u_spec} {P('x') == u_spec}",
        "p_add": lambda: repr(P("x", unreduced={"y"}) + P(None, reduced={"z"})),
        "p_add_tuple": lambda: repr(P("x", unreduced={"y"}) + (None,)),
        "p_radd_tuple": lambda: repr((None,) + P("x", unreduced={"y"})),
        "p_update": lambda: repr(P("x").update(unreduced={"y"})),
        # NamedSharding
        "ns_repr": lambda: repr(NS(mesh, u_spec)),
        "ns_unknown": lambda: repr(NS(mesh, P("x", unreduced={"z"}))),
        "ns_unknown_reduced": lambda: repr(NS(mesh, P("x", reduced={"z"}))),
        "ns_auto": lambda: repr(NS(amesh, P("x", unreduced={"y"}))),
        "ns_auto_reduced": lambda: repr(NS(amesh, P("x", reduced={"y"}))),
        "ns_replicated": lambda: f"{NS(mesh, u_spec).is_fully_replicated} "
                                 f"{NS(mesh, P(None, reduced={'y'})).is_fully_replicated}",
        "ns_shard_shape": lambda: repr(NS(mesh, u_spec).shard_shape((4, 4))),
        "ns_indices_map": lambda: repr(NS(mesh, u_spec).devices_indices_map((4, 4))),
        "ns_equivalent": lambda: f"{NS(mesh, u_spec).is_equivalent_to(NS(mesh, P('x')), 2)} "
                                 f"{NS(mesh, u_spec).is_equivalent_to(NS(mesh, u_spec), 2)}",
        # unreduced arrays
        "put_u": lambda: repr(put(u_spec)),
        "put_u_str": lambda: str(put(u_spec)),
        "put_u_typeof": lambda: str(jax.typeof(put(u_spec))),
        "put_u_asarray": lambda: repr(np.asarray(put(u_spec))),
        "put_u_shards": lambda: repr(put(u_spec).addressable_shards),
        "put_u_reshard": under_mesh(lambda: repr(np.asarray(jax.reshard(put(u_spec), P("x")))
                                                 .tolist())),
        "put_r_sharding": lambda: repr(put(P("x", reduced={"y"})).sharding),
        "eager_add_scalar": under_mesh(lambda: repr((put(u_spec) + 1).sharding)),
        "eager_add_same": under_mesh(lambda: repr((put(u_spec) + put(u_spec)).sharding)),
        "eager_sum": under_mesh(lambda: repr(jnp.sum(put(u_spec)))),
        "eager_sum_reshard": under_mesh(lambda: repr(float(np.asarray(
            jax.reshard(jnp.sum(put(u_spec)), P()))))),
        "jit_sum_reshard": under_mesh(lambda: repr(float(np.asarray(
            jax.reshard(jax.jit(jnp.sum)(put(u_spec)), P()))))),
        # dot_general making an unreduced value, reshard reducing it
        "dot_u_jaxpr": on_ab(lambda a, b: binder_types(jax.make_jaxpr(dot_u)(a, b))),
        "dot_u_typeof": on_ab(lambda a, b: str(jax.typeof(jax.jit(dot_u)(a, b)))),
        "dot_u_sharding": on_ab(lambda a, b: repr(jax.jit(dot_u)(a, b).sharding)),
        "dot_u_value": on_ab(lambda a, b: repr(np.asarray(
            jax.reshard(jax.jit(dot_u)(a, b), P("x", None))).tolist())),
        "dot_reduced_jaxpr": on_ab(lambda a, b: binder_types(
            jax.make_jaxpr(dot_reduced)(a, b))),
        "dot_reduced_value": on_ab(lambda a, b: repr(np.asarray(
            jax.jit(dot_reduced)(a, b)).tolist())),
        "dot_reduced_lowered": on_ab(lambda a, b: " ".join(_SDY.findall(
            jax.jit(dot_reduced).lower(a, b).as_text()))),
        "dot_replicated_u": on_ab(lambda a, b: binder_types(jax.make_jaxpr(
            lambda a, b: jnp.dot(a, b, out_sharding=P(None, None, unreduced={"y"})))(a, b))),
        "add_u_u": on_ab(lambda a, b: binder_types(jax.make_jaxpr(
            lambda a, b: dot_u(a, b) + dot_u(a, b))(a, b))),
        "add_u_value": on_ab(lambda a, b: repr(np.asarray(jax.jit(
            lambda a, b: jax.reshard(dot_u(a, b) + dot_u(a, b), P()))(a, b)).tolist())),
        "add_u_mixed": on_ab(lambda a, b: str(jax.make_jaxpr(
            lambda a, b: dot_u(a, b) + a)(a, b))),
        "mul_u": on_ab(lambda a, b: str(jax.jit(lambda a, b: dot_u(a, b) * 2.)(a, b))),
        "sin_u": on_ab(lambda a, b: str(jax.jit(lambda a, b: jnp.sin(dot_u(a, b)))(a, b))),
        "dot_of_u": on_ab(lambda a, b: str(jax.jit(lambda a, b: dot_u(dot_u(a, b), b))(a, b))),
        "dot_u_wrong_axes": on_ab(lambda a, b: str(jax.jit(lambda a, b: jnp.dot(
            a, b, out_sharding=P(None, None, unreduced={"x"})))(a, b))),
        "dot_u_overlap": on_ab(lambda a, b: str(jax.jit(lambda a, b: jnp.dot(
            a, b, out_sharding=P("x", None, unreduced={"x"})))(a, b))),
        "sub_u": under_mesh(lambda: repr(jax.jit(lambda u: u - u)(put(u_spec)).sharding)),
        "neg_u": under_mesh(lambda: repr(jax.jit(lambda u: -u)(put(u_spec)).sharding)),
        "transpose_u": under_mesh(lambda: repr(jax.jit(lambda u: u.T)(put(u_spec)).sharding)),
        "slice_u": under_mesh(lambda: repr(jax.jit(lambda u: u[0:2])(put(u_spec)).sharding)),
        "wsc_u": under_mesh(lambda: repr(jax.jit(lambda a: lax.with_sharding_constraint(
            a, P("x", unreduced={"y"})))(put(P("x", "y"))).sharding)),
        "reshard_to_u": under_mesh(lambda: repr(float(np.asarray(jax.reshard(jax.jit(
            lambda a: jax.reshard(a, P("x", unreduced={"y"})))(put(P("x", "y"))),
            P("x"))).sum()))),
        "jit_out_shardings_u": lambda: repr(float(np.asarray(jax.reshard(jax.jit(
            lambda a: a * 1, out_shardings=NS(mesh, u_spec))(put(P("x", "y"))),
            NS(mesh, P("x")))).sum())),
        "jit_in_shardings_u": lambda: repr(float(np.asarray(jax.jit(
            lambda u: jax.reshard(u, NS(mesh, P("x"))), in_shardings=NS(mesh, u_spec))(
                put(u_spec))).sum())),
        # reduced axes
        "reduced_typeof": lambda: str(jax.typeof(put(P("x", reduced={"y"})))),
        "reduced_value": lambda: repr(float(np.asarray(put(P("x", reduced={"y"}))).sum())),
        "reduced_sin": under_mesh(lambda: str(jax.typeof(jnp.sin(put(P("x", reduced={"y"})))))),
        "reduced_add": under_mesh(lambda: str(jax.typeof(
            put(P("x", reduced={"y"})) + put(P("x", reduced={"y"}))))),
        "reduced_add_scalar": under_mesh(lambda: str(jax.typeof(put(P("x", reduced={"y"})) + 1))),
        "reduced_add_replicated": under_mesh(lambda: str(jax.typeof(
            put(P("x", reduced={"y"})) + put(P("x", None))))),
        "reduced_add_sharded": under_mesh(lambda: str(jax.typeof(
            put(P("x", reduced={"y"})) + put(P("x", "y"))))),
        "reduced_sum": under_mesh(lambda: str(jax.typeof(put(P("x", reduced={"y"})).sum(axis=1)))),
        "unreduced_times_reduced": on_ab(lambda a, b: binder_types(jax.make_jaxpr(
            lambda u, r: u * r)(jax.jit(dot_u)(a, b), put(P("x", reduced={"y"}))))),
        "unreduced_times_reduced_value": on_ab(lambda a, b: repr(np.asarray(jax.jit(
            lambda u, r: jax.reshard(u * r, P("x", None)))(
                jax.jit(dot_u)(a, b), put(P("x", reduced={"y"})))).tolist())),
        # unreduced values in shard_map
        "sm_u_psum": lambda: sm_u(lambda v: lax.psum(v, "y"), P("x")),
        "sm_u_infer": lambda: sm_u(lambda v: lax.psum(v, "y"), P("x"), infer=True),
        "sm_u_identity": lambda: sm_u(lambda v: v, P("x")),
        "sm_u_identity_unchecked": lambda: sm_u(lambda v: v, P("x"), check_vma=False),
        "sm_u_out_u": lambda: sm_u(lambda v: v, P("x", unreduced={"y"})),
        "sm_u_sin": lambda: sm_u(jnp.sin, P("x")),
        "sm_u_add": lambda: sm_u(lambda v: lax.psum(v + v, "y"), P("x")),
        "sm_u_psum_x": lambda: sm_u(lambda v: lax.psum(v, "x"), P()),
        "sm_u_pmax": lambda: sm_u(lambda v: lax.pmax(v, "y"), P("x")),
        "sm_make_u": lambda: repr(jax.shard_map(lambda v: v, mesh=mesh, in_specs=P("x", "y"),
                                                out_specs=P("x", unreduced={"y"}))(
            put(P("x", "y")))),
        # varying manual axes
        "vma_typeof": vma(True),
        "vma_typeof_unchecked": vma(False),
        "vma_body_types": body_types(True),
        "vma_body_types_unchecked": body_types(False),
        "vma_sharding": manual_sharding,
        "vma_grad_check_vma": lambda: " ".join(re.findall(r"check_vma=(\w+)", str(
            jax.make_jaxpr(jax.grad(lambda v: jax.shard_map(
                lambda a: lax.psum(jnp.sin(a), "x"), mesh=amesh, in_specs=P("x", "y"),
                out_specs=P(None, "y"))(v).sum()))(x)))),
        "mat_outside": lambda: repr(jax.typeof(x).mat.varying),
        # shard_map's in_specs on an Explicit mesh
        "explicit_in_specs_mismatch": lambda: repr(sm(P("x", None), None)(put(P("x", "y")))),
        "explicit_in_specs_mismatch_jit": lambda: repr(jax.jit(sm(P("x", None), None))(
            put(P("x", "y")))),
        "explicit_in_specs_mismatch_jaxpr": lambda: str(jax.make_jaxpr(sm(P("x", None), None))(
            put(P("x", "y")))),
        "explicit_in_specs_host": lambda: repr(sm(P("x", None), None)(x)),
        "explicit_in_specs_match": lambda: repr(sm(P("x", "y"), None)(put(P("x", "y")))
                                                .sharding),
        "explicit_in_specs_set_mesh": under_mesh(lambda: repr(jax.shard_map(
            lambda v: v, in_specs=P("x", None), out_specs=P("x", None))(put(P("x", "y"))))),
        "explicit_out_type": lambda: binder_types(jax.make_jaxpr(jax.shard_map(
            lambda v: lax.psum(v, "y"), mesh=mesh, in_specs=P("x", "y"),
            out_specs=P("x", None)))(put(P("x", "y")))),
        # pmap lowered
        "pmap_lower_main": lambda: main_line(pmapped().lower(ones)),
        "jit_pmap_lower_main": lambda: main_line(jax.jit(pmapped()).lower(ones)),
        "jit_pmap_lower_run": lambda: repr(np.asarray(
            jax.jit(pmapped()).lower(ones).compile()(ones)).tolist()),
        "pmap_lower_in_axes": lambda: main_line(jax.pmap(
            lambda v, w: (v * w, w), axis_name="i", in_axes=(0, None)).lower(
                ones, np.float32(2))),
        # grad on an Explicit mesh: layouts inside and of the backward pass
        "grad_types": grad_types,
        "grad_jit": grad_jit,
        # make_jaxpr's sharded types
        "make_jaxpr_types": on_ab(lambda a, b: binder_types(jax.make_jaxpr(
            lambda a, b: jnp.sin(jnp.dot(a, b, out_sharding=P("x", None))))(a, b))),
    }


def run_case(fn):
    """{"value": text} or {"error": builtin class name, "message": the whole text}."""
    try:
        return {"value": fn()}
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return {"error": builtin.__name__, "message": getattr(e, "message", None) or str(e)}


if __name__ == "__main__":
    import jax
    jax.config.update("jax_num_cpu_devices", 4)
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("sharding_types.json")
    got = {name: run_case(fn) for name, fn in cases(jax).items()}
    path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
