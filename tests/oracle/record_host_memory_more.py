"""Host memory kinds, the rest of issue 13, as JAX 0.10.2 has them on 4 CPU devices, and
a recorder of JAX's outcomes (see README.md):

- `NamedSharding(mesh, spec, memory_kind=...)`: `device_put` of a laid-out array to
  pinned / unpinned host memory and back, its shards, eager operations on it, `jit`
  with in/out shardings naming memory kinds over the mesh (module text, results),
  `device_put` to such a layout inside `jit`, JAX's error for a mismatched kind;
- `jax.experimental.compute_on('device_host' | 'device')`: jaxpr, module text, values,
  under `grad` and with a `cond` inside, around an eager call of a jitted function,
  JAX's errors;
- `checkpoint` policies that offload (`save_and_offload_only_these_names`,
  `offload_dot_with_no_batch_dims`): the `device_put`s of the gradient's jaxpr, values
  eagerly, under `jit` and `vmap`;
- derivatives, `cond`, `scan` and `while` of values in host memory: JAX's results or
  errors.

`SCENARIOS` maps a name to a function of a namespace `J` (see `namespace`) returning
what `summarize` records, or raising. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_host_memory_more.py` writes
host_memory_more.json.
"""
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from record_host_memory import builtin_class  # noqa: E402

X = np.arange(24, dtype=np.float32).reshape(4, 6)
V = np.arange(3, dtype=np.float32) + 1


def _mesh(J):
    return J.Mesh(np.array(J.jax.devices()[:4]).reshape(2, 2), ("x", "y"))


def _ns(J, spec, kind):
    return J.NS(_mesh(J), J.P(*spec), memory_kind=kind)


def _put(J, kind, spec=("x", "y"), x=X):
    return J.jax.device_put(x, _ns(J, spec, kind))


def _double(a):
    return a * 2


def _lower_and_call(jitted, *args):
    return jitted.lower(*args).as_text(), jitted(*args)


def _inside(J):
    def h(v):
        w = J.jax.device_put(v, _ns(J, ("x",), "pinned_host"))
        return w, J.jax.device_put(w, _ns(J, ("x",), "device")) + 1
    return h


def _block(J, kind):
    def f(x):
        y = x * 3
        with J.compute_on(kind):
            z = J.jnp.sin(y) + 1
        return z * y
    return f


def _gspmd(J, thunk):
    """`thunk()` lowered with GSPMD (`mhlo.sharding`) instead of Shardy."""
    J.jax.config.update("jax_use_shardy_partitioner", False)
    try:
        return thunk()
    finally:
        J.jax.config.update("jax_use_shardy_partitioner", True)


def _nested(J):
    g = J.compute_on("device_host")(J.jax.jit(lambda x: x * 2))

    def f(x):
        return g(x) + 1
    return f


def _co2(J, kind="device_host", spaces=None, **kw):
    """A function calling `compute_on2` (and the result's sum, for `grad`)."""
    spaces = spaces or (J.jax.memory.Space.Host, J.jax.memory.Space.Device)

    def f(x):
        return J.compute_on2(lambda a: (J.jnp.sin(a) * 2, a + 1), compute_type=kind,
                             out_memory_spaces=spaces, **kw)(x)
    return f


def _eager_jit_block(J):
    """A jitted function called (and lowered) eagerly inside a `compute_on` block and
    outside it: JAX traces it in the block's context, a program of its own."""
    g = J.jax.jit(lambda x: J.jnp.sin(x) * 2)
    before = g(V)
    with J.compute_on("device_host"):
        inside = (g.lower(V).as_text(), g(V))
    return (before, *inside, g.lower(V).as_text())


def _co2_twice(J):
    def f(x):
        g = J.compute_on2(lambda a: a * 2, compute_type="device_host",
                          out_memory_spaces=J.jax.memory.Space.Device)
        h = J.compute_on2(lambda a: J.jnp.cos(a), compute_type="device_host",
                          out_memory_spaces=J.jax.memory.Space.Device)
        return g(x) + h(x)
    return f


def _co2_sum(J):
    def f(x):
        return J.jnp.sum(J.compute_on2(lambda a: J.jnp.sin(a) * a, compute_type="device_host",
                                       out_memory_spaces=J.jax.memory.Space.Device)(x))
    return f


def _co2_host_sum(J):
    """A sum through a `compute_on2` result put in host memory (and moved back): its
    cotangent arrives in host memory, which JAX's transpose of the body refuses."""
    def f(x):
        h, d = J.compute_on2(lambda a: (J.jnp.sin(a) * 2, a * a), compute_type="device_host",
                             out_memory_spaces=(J.jax.memory.Space.Host,
                                                J.jax.memory.Space.Device))(x)
        return J.jnp.sum(J.jax.device_put(h, J.jax.memory.Space.Device) + d)
    return f


def _co2_nested(J):
    inner = J.compute_on2(lambda a: a * 2, compute_type="device",
                          out_memory_spaces=J.jax.memory.Space.Device)
    return J.compute_on2(lambda a: inner(a) + 1, compute_type="device_host",
                         out_memory_spaces=J.jax.memory.Space.Device)


def _block_cond(J):
    def f(x):
        with J.compute_on("device_host"):
            z = J.jax.lax.cond(J.jnp.max(x) > 2, lambda v: v * 2, lambda v: v - 1, x)
        return z + 1
    return f


def _mlp(J):
    def mlp(W, x):
        h = J.checkpoint_name(J.jnp.sin(W @ x), "h")
        z = J.checkpoint_name(J.jnp.cos(W @ h) * x, "z")
        return J.jnp.sum(z * h)
    return mlp


def _policy(J, name):
    cp = J.jax.checkpoint_policies
    if name == "names":
        return cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["z"], names_which_can_be_offloaded=["h"],
            offload_src="device", offload_dst="pinned_host")
    return cp.offload_dot_with_no_batch_dims("device", "pinned_host")


W = (np.arange(9, dtype=np.float32).reshape(3, 3) / 10)


def _offload_grad(J, name):
    return J.jax.grad(J.jax.checkpoint(_mlp(J), policy=_policy(J, name)), argnums=(0, 1))


def device_puts(text):
    """The `device_put` equations of a printed jaxpr, each as `out <- destination`
    (types and params; variable names dropped), sorted (JAX prints the backward jaxpr
    of its `remat` first, as a `let`)."""
    out = []
    for m in re.finditer(r"(\w+):(\S+) = device_put\[\s*copy_semantics=(\S+)\s*"
                         r"devices=(\S+)\s*srcs=(\S+)\s*\] (\w+)", text):
        out.append(f"{m.group(2)} <- devices={m.group(4)} copy_semantics={m.group(3)} "
                   f"srcs={m.group(5)}")
    return sorted(out)


def _host(J):
    return J.jax.device_put(V, J.jax.memory.Space.Host)


def _scan_sum(J):
    def f(a):
        return J.jax.lax.scan(lambda c, r: (c + r, c * r), J.jnp.zeros(()), a)
    return f


SCENARIOS = {
    # ---- NamedSharding with a memory kind
    "sharded_put_pinned": lambda J: _put(J, "pinned_host"),
    "sharded_put_unpinned": lambda J: _put(J, "unpinned_host", ("x",)),
    "sharded_shards_pinned": lambda J: [s.data for s in _put(J, "pinned_host").addressable_shards],
    "sharded_back": lambda J: J.jax.device_put(_put(J, "pinned_host"),
                                               _ns(J, ("x",), "device")),
    "sharded_to_other_host": lambda J: J.jax.device_put(_put(J, "pinned_host"),
                                                        _ns(J, ("y",), "unpinned_host")),
    "sharded_eager_pinned": lambda J: (_put(J, "pinned_host") + 1,
                                       J.jnp.sum(_put(J, "pinned_host"))),
    "sharded_eager_unpinned": lambda J: _put(J, "unpinned_host", ("x",)) * 2,
    "sharded_jit_in_pinned_out_device": lambda J: _lower_and_call(J.jax.jit(
        _double, in_shardings=_ns(J, ("x", "y"), "pinned_host"),
        out_shardings=_ns(J, ("x", "y"), "device")), _put(J, "pinned_host")),
    "sharded_jit_out_pinned": lambda J: _lower_and_call(J.jax.jit(
        _double, out_shardings=_ns(J, ("x", "y"), "pinned_host")), X),
    "sharded_jit_out_unpinned": lambda J: _lower_and_call(J.jax.jit(
        _double, out_shardings=_ns(J, ("y",), "unpinned_host")), X),
    "sharded_jit_of_pinned": lambda J: _lower_and_call(J.jax.jit(_double),
                                                       _put(J, "pinned_host")),
    "sharded_jit_in_only_pinned": lambda J: _lower_and_call(J.jax.jit(
        _double, in_shardings=_ns(J, ("x", "y"), "pinned_host")), _put(J, "pinned_host")),
    "sharded_jit_in_pinned_numpy": lambda J: _lower_and_call(J.jax.jit(
        _double, in_shardings=_ns(J, ("x",), "pinned_host")), X),
    "sharded_jit_kind_mismatch": lambda J: J.jax.jit(
        _double, in_shardings=_ns(J, ("x", "y"), "pinned_host"))(_put(J, "device")),
    "sharded_jit_in_pinned_uncommitted": lambda J: J.jax.jit(
        _double, in_shardings=_ns(J, ("x",), "pinned_host"))(J.jnp.asarray(X)),
    "sharded_jit_gspmd": lambda J: _gspmd(J, lambda: _lower_and_call(J.jax.jit(
        _double, in_shardings=_ns(J, ("x", "y"), "pinned_host"),
        out_shardings=_ns(J, ("y",), "unpinned_host")), _put(J, "pinned_host"))),
    "sharded_inside_jaxpr": lambda J: str(J.jax.make_jaxpr(_inside(J))(X)),
    "sharded_inside": lambda J: _lower_and_call(J.jax.jit(_inside(J)), X),
    # ---- compute_on
    "compute_on_jaxpr": lambda J: str(J.jax.make_jaxpr(_block(J, "device_host"))(V)),
    "compute_on_host": lambda J: _lower_and_call(J.jax.jit(_block(J, "device_host")), V),
    "compute_on_device": lambda J: _lower_and_call(J.jax.jit(_block(J, "device")), V),
    "compute_on_grad": lambda J: J.jax.jit(J.jax.grad(
        lambda x: J.jnp.sum(_block(J, "device_host")(x))))(V),
    "compute_on_grad_text": lambda J: J.jax.jit(J.jax.grad(
        lambda x: J.jnp.sum(_block(J, "device_host")(x)))).lower(V).as_text(),
    "compute_on_nested_jit": lambda J: _lower_and_call(J.jax.jit(_nested(J)), V),
    "compute_on_cond": lambda J: _lower_and_call(J.jax.jit(_block_cond(J)), V),
    "compute_on2_jaxpr": lambda J: str(J.jax.make_jaxpr(_co2(J))(V)),
    "compute_on2_host": lambda J: _lower_and_call(J.jax.jit(_co2(J)), V),
    "compute_on2_device": lambda J: _lower_and_call(J.jax.jit(_co2(
        J, "device", (J.jax.memory.Space.Device,) * 2)), V),
    "compute_on2_options": lambda J: J.jax.jit(_co2(
        J, compiler_options={"xla_cpu_enable_fast_math": False})).lower(V).as_text(),
    "compute_on2_eager": lambda J: _co2(J)(V),
    "compute_on_around_eager_jit": _eager_jit_block,
    "compute_on2_twice": lambda J: _lower_and_call(J.jax.jit(_co2_twice(J)), V),
    "compute_on2_grad": lambda J: (J.jax.grad(_co2_sum(J))(V), J.jax.jit(J.jax.grad(_co2_sum(J)))(V)),
    "compute_on2_host_grad": lambda J: J.jax.grad(_co2_host_sum(J))(V),
    "compute_on2_host_jit_grad": lambda J: J.jax.jit(J.jax.grad(_co2_host_sum(J)))(V),
    "compute_on2_vmap": lambda J: J.jax.jit(J.jax.vmap(_co2(J)))(np.stack([V, 2 * V])),
    "compute_on2_nested": lambda J: J.jax.jit(_co2_nested(J)).lower(V).as_text(),
    "compute_on_invalid": lambda J: J.compute_on("gpu").__enter__(),
    "compute_on_not_str": lambda J: J.compute_on(3).__enter__(),
    # ---- checkpoint policies that offload
    **{f"offload_{n}_puts": (lambda J, n=n: device_puts(str(J.jax.make_jaxpr(
        _offload_grad(J, n))(W, V)))) for n in ("names", "dots")},
    "offload_names_grad": lambda J: _offload_grad(J, "names")(W, V),
    **{f"offload_{n}_jit_grad": (lambda J, n=n: J.jax.jit(_offload_grad(J, n))(W, V))
       for n in ("names", "dots")},
    "offload_names_vmap_grad": lambda J: J.jax.jit(J.jax.vmap(
        _offload_grad(J, "names"), in_axes=(None, 0)))(W, np.stack([V, 2 * V])),
    # ---- transformations of values in host memory
    "host_grad": lambda J: J.jax.grad(lambda a: J.jnp.sum(a * a))(_host(J)),
    "host_jit_grad": lambda J: J.jax.jit(J.jax.grad(lambda a: J.jnp.sum(a * a)))(_host(J)),
    "host_value_and_grad": lambda J: J.jax.value_and_grad(lambda a: J.jnp.sum(J.jnp.sin(a)))(
        _host(J)),
    "host_vjp_device_ct": lambda J: J.jax.vjp(lambda a: a * 3, _host(J))[1](V),
    "host_vjp_host_ct": lambda J: J.jax.vjp(lambda a: a * 3, _host(J))[1](_host(J)),
    "host_jvp": lambda J: J.jax.jvp(lambda a: a * 3, (_host(J),), (_host(J),)),
    "grad_through_put_to_host": lambda J: J.jax.grad(lambda a: J.jnp.sum(
        J.jax.device_put(a, J.jax.memory.Space.Host) * 2))(V),
    "jit_grad_through_put": lambda J: J.jax.jit(J.jax.grad(lambda a: J.jnp.sum(J.jax.device_put(
        J.jax.device_put(a, J.jax.memory.Space.Host), J.jax.memory.Space.Device) ** 2)))(V),
    "host_scan": lambda J: J.jax.jit(_scan_sum(J))(_host(J)),
    "host_scan_jaxpr": lambda J: str(J.jax.make_jaxpr(_scan_sum(J))(_host(J))),
    "host_while": lambda J: J.jax.jit(lambda a: J.jax.lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, a)))(_host(J)),
    "host_cond_operand": lambda J: J.jax.jit(lambda p, a: J.jax.lax.cond(
        p, lambda v: v + 1, lambda v: v * 2, a))(True, _host(J)),
}


def summarize(r, jax):
    """A JSON view of a scenario's result (a laid-out array: also its shards' memory)."""
    if isinstance(r, str):
        return {"text": r}
    if isinstance(r, list) and all(isinstance(x, str) for x in r):
        return {"lines": r}
    if isinstance(r, (tuple, list)):
        return {"items": [summarize(x, jax) for x in r]}
    out = {"value": np.asarray(r).tolist(), "dtype": str(np.asarray(r).dtype),
           "sharding": repr(r.sharding), "type": str(jax.typeof(r)),
           "committed": bool(r.committed)}
    if len(r.sharding.device_set) > 1:
        out["shards"] = sorted({repr(s.data.sharding.memory_kind) + " " + str(jax.typeof(s.data))
                                for s in r.addressable_shards})
    return out


def outcome(thunk, jax):
    try:
        return summarize(thunk(), jax)
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return {"raises": builtin_class(e), "class": type(e).__name__, "message": str(e)}


def namespace(jax, jnp, sharding, compute_on, checkpoint_name):
    """The `J` the scenarios read, for `jax` or `astjax` (`compute_on`: the module)."""
    return type("J", (), dict(jax=jax, jnp=jnp, np=np, NS=sharding.NamedSharding,
                              P=sharding.PartitionSpec, Mesh=sharding.Mesh,
                              compute_on=staticmethod(compute_on.compute_on),
                              compute_on2=staticmethod(compute_on.compute_on2),
                              checkpoint_name=staticmethod(checkpoint_name)))


def record(path):
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import jax
    from jax.ad_checkpoint import checkpoint_name
    from jax.experimental import compute_on
    J = namespace(jax, jax.numpy, jax.sharding, compute_on, checkpoint_name)
    out = {name: outcome(lambda: fn(J), jax) for name, fn in SCENARIOS.items()}
    Path(path).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name(
        "host_memory_more.json"))
