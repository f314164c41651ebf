"""Calls JAX 0.10.2 computes that astjax used to refuse (issue 13), as JAX runs them on
4 CPU devices, and a recorder of JAX's outcomes (see README.md):

- `Traced.lower(lowering_platforms=('cpu', 'cuda'))`: the multi-platform module (the
  platform index as `@main`'s first argument) and its `compile()`;
- `jit(f).lower(ShapeDtypeStruct(..., sharding=NamedSharding(...)))`: the lowering,
  the compiled program's shardings, calls on laid-out / host / uncommitted arguments
  and JAX's errors for arguments laid out otherwise;
- XLA tokens as `jit` arguments and results (`!stablehlo.token` in `@main`);
- `pmap(axis_size=, backend=)`;
- `lax.linalg.qdwh(x, dynamic_shape=(m, n))` on a padded matrix under `jit` with m,
  n traced (and JAX's `qdwh` of the unpadded matrix, the reference inside);
- `device_put` to host memory (`memory.Space.Host`, `memory_kind='pinned_host'`) and
  to a memory kind the CPU does not have.

`SCENARIOS` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`,
`J.np`, `J.NamedSharding`, `J.SingleDeviceSharding`, `J.Mesh`, `J.P`) returning a value
`outcome` summarizes (text, arrays with their sharding, tokens, tuples of them) or
raising. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_refusals_computed.py` writes
refusals_computed.json.
"""
import json
import os
import sys
from pathlib import Path

import numpy as np

X3 = np.arange(3, dtype=np.float32)
X82 = np.arange(16, dtype=np.float32).reshape(8, 2)
_A = np.random.default_rng(13).standard_normal((6, 4)).astype(np.float32)
PADDED = np.zeros((8, 6), np.float32)
PADDED[:6, :4] = _A
PADDED[6:, :] = 5.0   # (garbage outside the true 6 x 4: dynamic_shape masks it out)
PADDED[:, 4:] = -3.0


def _plain(x):
    return x * 2 + 1


def _by_platform(J):
    def g(x):
        return J.lax.platform_dependent(x, cpu=J.jnp.sin, cuda=J.jnp.cos) * 2
    return g


def _lower_mp(J, f, platforms):
    return J.jax.jit(f).trace(X3).lower(lowering_platforms=platforms)


def _mesh(J):
    return J.Mesh(J.np.array(J.jax.devices()), ("x",))


def _f2(x, y):
    return x * 2 + y.sum()


def _sds_compiled(J):
    s = J.NamedSharding(_mesh(J), J.P("x"))
    return J.jax.jit(_f2).lower(J.jax.ShapeDtypeStruct((8, 2), J.np.float32, sharding=s),
                                J.jax.ShapeDtypeStruct((3,), J.np.float32)).compile()


def _put(J, spec):
    return J.jax.device_put(X82, J.NamedSharding(_mesh(J), J.P(*spec)))


def _tok_f(J):
    def threads(tok, x):
        return J.lax.after_all(tok), x * 2
    return threads


def _tok_new(J):
    def makes(x):
        return J.lax.create_token(), x
    return makes


SCENARIOS = {
    # -- several lowering platforms
    "mp_plain_text": lambda J: _lower_mp(J, _plain, ("cpu", "cuda")).as_text(),
    "mp_plain_text_cuda_first": lambda J: _lower_mp(J, _plain, ("cuda", "cpu")).as_text(),
    "mp_dependent_text": lambda J: _lower_mp(J, _by_platform(J), ("cpu", "cuda")).as_text(),
    "mp_compile": lambda J: _lower_mp(J, _plain, ("cpu", "cuda")).compile(),
    "mp_gpu_name": lambda J: _lower_mp(J, _plain, ("cpu", "gpu")),
    "dependent_cpu_value": lambda J: J.jax.jit(_by_platform(J))(X3),
    "dependent_cuda_branch_value": lambda J: J.jax.jit(lambda x: J.jnp.cos(x) * 2)(X3),
    # -- ShapeDtypeStructs with shardings
    "sds_text": lambda J: J.jax.jit(_f2).lower(
        J.jax.ShapeDtypeStruct((8, 2), J.np.float32,
                               sharding=J.NamedSharding(_mesh(J), J.P("x"))),
        J.jax.ShapeDtypeStruct((3,), J.np.float32)).as_text(),
    "sds_input_shardings": lambda J: [repr(s) for s in _sds_compiled(J).input_shardings[0]],
    "sds_output_sharding": lambda J: repr(_sds_compiled(J).output_shardings),
    "sds_call_laid_out": lambda J: _sds_compiled(J)(_put(J, ("x",)), J.jnp.ones(3)),
    "sds_call_numpy": lambda J: _sds_compiled(J)(X82, np.ones(3, np.float32)),
    "sds_call_uncommitted": lambda J: _sds_compiled(J)(J.jnp.asarray(X82), J.jnp.ones(3)),
    "sds_call_committed_elsewhere": lambda J: _sds_compiled(J)(
        J.jax.device_put(X82, J.jax.devices()[1]), J.jnp.ones(3)),
    "sds_call_replicated": lambda J: _sds_compiled(J)(_put(J, ()), J.jnp.ones(3)),
    "sds_indivisible": lambda J: J.jax.jit(_f2).lower(
        J.jax.ShapeDtypeStruct((7, 2), J.np.float32,
                               sharding=J.NamedSharding(_mesh(J), J.P("x"))),
        J.jax.ShapeDtypeStruct((3,), J.np.float32)),
    "sds_pspec_without_mesh": lambda J: J.jax.jit(_f2).lower(
        J.jax.ShapeDtypeStruct((8, 2), J.np.float32, sharding=J.P("x")),
        J.jax.ShapeDtypeStruct((3,), J.np.float32)),
    "sds_single_device": lambda J: J.jax.jit(_f2).lower(
        J.jax.ShapeDtypeStruct((8, 2), J.np.float32,
                               sharding=J.SingleDeviceSharding(J.jax.devices()[1])),
        J.jax.ShapeDtypeStruct((3,), J.np.float32)).compile()(J.jnp.asarray(X82),
                                                               J.jnp.ones(3)),
    "sds_keyword": lambda J: J.jax.jit(_f2).lower(
        J.jax.ShapeDtypeStruct((8, 2), J.np.float32,
                               sharding=J.NamedSharding(_mesh(J), J.P("x"))),
        y=J.jax.ShapeDtypeStruct((3,), J.np.float32)).compile()(_put(J, ("x",)),
                                                                y=J.jnp.ones(3)),
    # -- tokens at the jit boundary
    "tok_in_out_text": lambda J: J.jax.jit(_tok_f(J)).lower(J.lax.create_token(), X3).as_text(),
    "tok_out_text": lambda J: J.jax.jit(_tok_new(J)).lower(X3).as_text(),
    "tok_call": lambda J: J.jax.jit(_tok_f(J))(J.lax.create_token(), X3),
    "tok_compiled_call": lambda J: J.jax.jit(_tok_f(J)).lower(
        J.lax.create_token(), X3).compile()(J.lax.create_token(), X3),
    "tok_create_call": lambda J: J.jax.jit(lambda x: (J.lax.create_token(), x + 1))(X3),
    "tok_jaxpr": lambda J: str(J.jax.make_jaxpr(_tok_f(J))(J.lax.create_token(), X3)),
    # -- pmap's axis_size and backend
    "pmap_axis_size": lambda J: J.jax.pmap(lambda x: x * 2, axis_size=4)(X82[:4]),
    "pmap_axis_size_psum": lambda J: J.jax.pmap(lambda x: J.lax.psum(x, "i"), "i",
                                                axis_size=4)(X82[:4]),
    "pmap_axis_size_mismatch": lambda J: J.jax.pmap(lambda x: x * 2, axis_size=2)(X82[:4]),
    "pmap_axis_size_unmapped": lambda J: J.jax.pmap(lambda x: x * 2, in_axes=None,
                                                    axis_size=2)(X3),
    "pmap_backend_cpu": lambda J: J.jax.pmap(lambda x: x * 2, backend="cpu")(X82[:4]),
    "pmap_backend_and_devices": lambda J: J.jax.pmap(
        lambda x: x * 2, backend="cpu", devices=J.jax.devices()[:2])(X82[:2]),
    "pmap_backend_gpu": lambda J: J.jax.pmap(lambda x: x * 2, backend="gpu")(X82[:4]),
    "pmap_global_arg_shapes": lambda J: J.jax.pmap(lambda x: x, global_arg_shapes=(1,)),
    # -- qdwh on a padded matrix
    # (eps=1e-2: one QR step, then Cholesky steps, then the Halley loop -- every path,
    # in about half the compile time of the float32 default's schedule)
    "qdwh_unpadded": lambda J: J.lax.linalg.qdwh(_A, eps=1e-2),   # (JAX's: the reference)
    "qdwh_padded_jit": lambda J: J.jax.jit(
        lambda x, m, n: J.lax.linalg.qdwh(x, dynamic_shape=(m, n), eps=1e-2))(PADDED, 6, 4),
    "qdwh_wide": lambda J: J.lax.linalg.qdwh(PADDED.T),
    # -- memory kinds (host memory: tests/test_host_memory.py has more)
    "memory_space_host": lambda J: J.jax.device_put(X3, J.jax.memory.Space.Host),
    "memory_kind_pinned_host": lambda J: J.jax.device_put(X3, J.SingleDeviceSharding(
        J.jax.devices()[0], memory_kind="pinned_host")),
    "memory_kind_unknown": lambda J: J.jax.device_put(X3, J.SingleDeviceSharding(
        J.jax.devices()[0], memory_kind="foo")),
}


def builtin_class(e):
    """The first builtin exception class of `e`'s type (what astjax must raise too)."""
    return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


def summarize(r):
    """A JSON view of a scenario's result."""
    if isinstance(r, str):
        return {"text": r}
    if isinstance(r, (tuple, list)):
        return {"items": [summarize(x) for x in r]}
    if type(r).__name__ == "Token":
        return {"token": True}
    if hasattr(r, "shape") and hasattr(r, "dtype"):
        out = {"value": np.asarray(r).tolist(), "dtype": str(np.asarray(r).dtype)}
        if hasattr(r, "sharding"):
            out["sharding"] = repr(r.sharding)
        return out
    return {"repr": repr(r)}


def outcome(thunk):
    try:
        return summarize(thunk())
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return {"raises": builtin_class(e), "class": type(e).__name__, "message": str(e)}


def namespace(jax, jnp, lax, sharding):
    """The `J` the scenarios read, for `jax` or `astjax`."""
    return type("J", (), dict(jax=jax, jnp=jnp, lax=lax, np=np,
                              NamedSharding=sharding.NamedSharding,
                              SingleDeviceSharding=sharding.SingleDeviceSharding,
                              Mesh=sharding.Mesh, P=sharding.PartitionSpec))


def record(path):
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import jax
    J = namespace(jax, jax.numpy, jax.lax, jax.sharding)
    out = {name: outcome(lambda: fn(J)) for name, fn in SCENARIOS.items()}
    Path(path).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else
           Path(__file__).with_name("refusals_computed.json"))
