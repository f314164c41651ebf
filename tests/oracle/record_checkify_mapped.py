"""`checkify` through `pmap` and `shard_map`, recorded from JAX 0.10.2: after a
mapped body the error has a leading device axis, `Error.get()` reports every failing
device ("at mapped index i: ..."), `throw()` raises one failure (per kind of error
its last failing device; of those, the first site's). Per case: the message, the
thrown message, the outputs, and the message on inputs that pass. (A check after a
mapped body is not recorded: JAX 0.10.2's `Error.get()` then fails, IndexError.)

Run with 4 CPU devices: `XLA_FLAGS=--xla_force_host_platform_device_count=4
/work/jaxref/bin/python tests/oracle/record_checkify_mapped.py` writes
checkify_mapped.json; tests/test_checkify_mapped.py runs the cases on astjax.
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _positive_log(J, x):
    J.checkify.check(J.jnp.all(x > 0), "bad {x}", x=x)
    return J.jnp.log(x)


def _two_checks(J, x):
    J.checkify.check(J.jnp.all(x > 0), "neg")
    y = J.jnp.sin(x)
    J.checkify.check(J.jnp.all(x < 10), "big {x}", x=x)
    return y


def _mesh(J, shape=(4,), names=("i",)):
    return J.jax.make_mesh(shape, names,
                           axis_types=(J.jax.sharding.AxisType.Auto,) * len(shape))


def cases(J):
    """name -> (checkified function, failing input, passing input)."""
    jax, jnp, P, ck = J.jax, J.jnp, J.jax.sharding.PartitionSpec, J.checkify
    mesh = _mesh(J)
    pos = lambda x: _positive_log(J, x)   # noqa: E731
    smap = jax.shard_map(pos, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    two = jax.shard_map(lambda x: _two_checks(J, x), mesh=mesh, in_specs=P("i"),
                        out_specs=P("i"))

    def before(x):   # a failure before the shard_map: every device continues it
        ck.check(jnp.all(x < 100), "huge")
        return smap(x)

    mesh2 = _mesh(J, (2, 2), ("a", "b"))
    grid = jax.shard_map(pos, mesh=mesh2, in_specs=P("a", "b"), out_specs=P("a", "b"))
    x = jnp.array([1.0, -1.0, 2.0, -3.0])
    return {
        "pmap": (ck.checkify(jax.pmap(pos)), x, jnp.abs(x)),
        "jit_shard_map": (ck.checkify(jax.jit(smap)), x, jnp.abs(x)),
        "shard_map_all_checks": (ck.checkify(smap, errors=ck.all_checks), x, jnp.abs(x)),
        "two_checks": (ck.checkify(two), jnp.array([1.0, -1.0, 20.0, -3.0]), jnp.abs(x)),
        "pmap_two_checks": (ck.checkify(jax.pmap(lambda x: _two_checks(J, x))),
                            jnp.array([20.0, -1.0, 2.0, 30.0]), jnp.abs(x)),
        "before": (ck.checkify(before), jnp.array([1.0, -1.0, 200.0, 3.0]), jnp.abs(x)),
        "grid": (ck.checkify(grid), jnp.array([[1.0, -1.0], [-2.0, 3.0]]),
                 jnp.ones((2, 2))),
    }


def _tolist(x):
    return np.asarray(x, np.float64).tolist()


def run(J):
    out = {}
    for name, (f, bad, good) in cases(J).items():
        err, y = f(bad)
        try:
            err.throw()
            thrown = None
        except Exception as e:  # noqa: BLE001 -- what is recorded
            thrown = [type(e).__name__, str(e)]
        out[name] = {"message": err.get(), "thrown": thrown, "value": _tolist(y),
                     "passing": f(good)[0].get()}
    return out


def main():
    import types
    import jax
    import jax.numpy as jnp
    from jax.experimental import checkify
    J = types.SimpleNamespace(jax=jax, jnp=jnp, checkify=checkify)
    data = {"jax": jax.__version__, "cases": run(J)}
    (HERE / "checkify_mapped.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
