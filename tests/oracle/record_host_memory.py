"""Host memory kinds as JAX 0.10.2 has them on the CPU (issue 13), and a recorder of
JAX's outcomes (see README.md): `device_put` to `pinned_host` / `unpinned_host` /
`device` (by SingleDeviceSharding and by `memory.Space`) and back, eager operations on
such arrays, `jit` of them (plain, and with in/out shardings naming memory kinds: the
lowered module, the results' memory kinds and types), `device_put` to a memory kind
inside `jit` (its jaxpr, module and results), and JAX's errors for mismatched kinds.

`SCENARIOS` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.np`,
`J.SDS`) returning a value `summarize` records (text, arrays with their sharding, type
and committedness, tuples of them) or raising. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_host_memory.py` writes host_memory.json.
"""
import json
import os
import sys
from pathlib import Path

import numpy as np

X = np.arange(6, dtype=np.float32).reshape(2, 3)
KINDS = ("pinned_host", "unpinned_host", "device")


def _put(J, kind, x=X):
    return J.jax.device_put(x, J.SDS(J.jax.devices()[0], memory_kind=kind))


def _double(a):
    return a * 2


def _two(a, b):
    return a + 1, b * 2


def _branches(J):
    def branches(a):
        return J.jax.lax.cond(a.sum() > 0, lambda v: v * 2, lambda v: v + 1, a)
    return branches


def _lower_and_call(J, fn, arg):
    return (J.jax.jit(fn).lower(arg).as_text() if not hasattr(fn, "lower")
            else fn.lower(arg).as_text()), (fn if hasattr(fn, "lower") else J.jax.jit(fn))(arg)


def _jit_kinds(J, ik, ok):
    d = J.jax.devices()[0]
    return J.jax.jit(_double, in_shardings=J.SDS(d, memory_kind=ik),
                     out_shardings=J.SDS(d, memory_kind=ok))


_ARGS = {"numpy": lambda J: X, "uncommitted": lambda J: J.jnp.asarray(X),
         "pinned": lambda J: _put(J, "pinned_host"),
         "unpinned": lambda J: _put(J, "unpinned_host")}


def _to_host_and_back(J):
    def h(a):
        b = J.jax.device_put(a, J.jax.memory.Space.Host)
        c = J.jax.device_put(b, J.jax.memory.Space.Device)
        return b, c * 2
    return h


def _to_kind(kind):
    def to_kind(J):
        def h(a):
            return J.jax.device_put(a, J.SDS(J.jax.devices()[0], memory_kind=kind))
        return h
    return to_kind


SCENARIOS = {
    "memories": lambda J: repr([m.kind for m in J.jax.devices()[0].addressable_memories()]),
    "space_host": lambda J: J.jax.device_put(X, J.jax.memory.Space.Host),
    "space_device": lambda J: J.jax.device_put(X, J.jax.memory.Space.Device),
    "space_any": lambda J: J.jax.device_put(X, J.jax.memory.Space.Any),
    "unknown_kind": lambda J: _put(J, "foo"),
    "host_scalar_weak": lambda J: J.jax.device_put(J.jnp.asarray(2.0), J.jax.memory.Space.Host),
    "mixed_eager": lambda J: _put(J, "pinned_host") + J.jnp.asarray(X),
    "mixed_eager_scalar": lambda J: _put(J, "pinned_host") + J.jnp.asarray(1.0),
    "put_without_device": lambda J: J.jax.device_put(_put(J, "pinned_host")),
    "put_pinned_on_device": lambda J: J.jax.device_put(_put(J, "pinned_host"),
                                                        J.jax.devices()[0]),
    "put_unpinned_on_device": lambda J: J.jax.device_put(_put(J, "unpinned_host"),
                                                          J.jax.devices()[0]),
    "asarray_and_copy": lambda J: (J.jnp.asarray(_put(J, "pinned_host")),
                                   _put(J, "pinned_host").copy()),
    "vmap_on_host": lambda J: J.jax.vmap(_double)(_put(J, "pinned_host")),
    "with_memory_kind": lambda J: _lower_and_call(J, J.jax.jit(_double, out_shardings=J.SDS(
        J.jax.devices()[0]).with_memory_kind("pinned_host")), X),
    "jit_tree_shardings": lambda J: J.jax.jit(
        _two,
        in_shardings=(J.SDS(J.jax.devices()[0], memory_kind="pinned_host"), None),
        out_shardings=(None, J.SDS(J.jax.devices()[0], memory_kind="unpinned_host"))).lower(
            X, X).as_text(),
    "jit_cond_jaxpr": lambda J: str(J.jax.make_jaxpr(_branches(J))(_put(J, "pinned_host"))),
    "jit_cond": lambda J: J.jax.jit(_branches(J))(_put(J, "pinned_host")),
    "jit_dot_reshape": lambda J: J.jax.jit(lambda a: (J.jnp.dot(a, a.T), a.reshape(3, 2).T))(
        _put(J, "pinned_host")),
    "jit_where_mixed": lambda J: J.jax.jit(lambda a: J.jnp.where(a > 2, a, 0.0))(
        _put(J, "pinned_host")),
    "jit_const_to_host": lambda J: J.jax.jit(lambda a: a + X, out_shardings=J.SDS(
        J.jax.devices()[0], memory_kind="pinned_host"))(J.jnp.ones((2, 3))),
    "jit_closes_over_host": lambda J: (lambda y: J.jax.jit(lambda a: a * y.sum())(y))(
        _put(J, "pinned_host")),
    "jit_donates_host": lambda J: J.jax.jit(_double, donate_argnums=0)(_put(J, "pinned_host")),
    "host_to_host": lambda J: _put(J, "unpinned_host", _put(J, "pinned_host")),
    "jaxpr_on_host": lambda J: str(J.jax.make_jaxpr(_double)(_put(J, "pinned_host"))),
    "jit_mixed": lambda J: J.jax.jit(lambda a, b: a + b)(_put(J, "pinned_host"),
                                                          J.jnp.asarray(X)),
    "jit_sum_on_host": lambda J: J.jax.jit(lambda a: (a.sum(), a[0] * a[1]))(
        _put(J, "pinned_host")),
}
for _k in KINDS:
    SCENARIOS[f"put_{_k}"] = lambda J, k=_k: _put(J, k)
    SCENARIOS[f"back_{_k}"] = lambda J, k=_k: _put(J, "device", _put(J, k))
    SCENARIOS[f"ops_{_k}"] = lambda J, k=_k: (
        _put(J, k) + 1, _put(J, k) * _put(J, k), J.jnp.sum(_put(J, k)), _put(J, k)[0])
    SCENARIOS[f"plain_jit_{_k}"] = lambda J, k=_k: _lower_and_call(J, _double, _put(J, k))
for _ik, _ok in [("pinned_host", "device"), ("device", "pinned_host"),
                 ("unpinned_host", "unpinned_host"), ("pinned_host", "pinned_host")]:
    for _a in _ARGS:
        SCENARIOS[f"jit_in_{_ik}_out_{_ok}_{_a}"] = (
            lambda J, i=_ik, o=_ok, a=_a: _lower_and_call(J, _jit_kinds(J, i, o), _ARGS[a](J)))
for _name, _fn in [("space", _to_host_and_back), ("pinned", _to_kind("pinned_host")),
                   ("unpinned", _to_kind("unpinned_host"))]:
    SCENARIOS[f"inside_{_name}_jaxpr"] = lambda J, f=_fn: str(J.jax.make_jaxpr(f(J))(X))
    SCENARIOS[f"inside_{_name}"] = lambda J, f=_fn: _lower_and_call(J, f(J), J.jnp.asarray(X))


def builtin_class(e):
    """The first builtin exception class of `e`'s type (what astjax must raise too)."""
    return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


def summarize(r, jax):
    """A JSON view of a scenario's result."""
    if isinstance(r, str):
        return {"text": r}
    if isinstance(r, (tuple, list)):
        return {"items": [summarize(x, jax) for x in r]}
    return {"value": np.asarray(r).tolist(), "dtype": str(np.asarray(r).dtype),
            "sharding": repr(r.sharding), "type": str(jax.typeof(r)),
            "committed": bool(r.committed)}


def outcome(thunk, jax):
    try:
        return summarize(thunk(), jax)
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return {"raises": builtin_class(e), "class": type(e).__name__, "message": str(e)}


def namespace(jax, jnp, sharding):
    """The `J` the scenarios read, for `jax` or `astjax`."""
    return type("J", (), dict(jax=jax, jnp=jnp, np=np, SDS=sharding.SingleDeviceSharding))


def record(path):
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import jax
    J = namespace(jax, jax.numpy, jax.sharding)
    out = {name: outcome(lambda: fn(J), jax) for name, fn in SCENARIOS.items()}
    Path(path).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("host_memory.json"))
