"""JAX 0.10.2's key-reuse verdicts (`jax.debug_key_reuse(True)`) on loops bound outside
`jit` whose body closes over an eager key, and on jitted functions without a key
argument that consume a key they close over, called more than once (see README.md).

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.lax`, `J.jnp`) that
runs one program under the checker; recorded: "ok", or the name of the error's class
("KeyReuseError"). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_key_reuse_eager.py` writes
key_reuse_eager.json; `tests/test_key_reuse_eager.py` runs the same cases on astjax."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scan_closed(J):
    k = J.jax.random.key(0)
    return J.lax.scan(lambda c, x: (c + J.jax.random.normal(k), None), 0.0, None, length=3)


def scan_closed_one_trip(J):
    k = J.jax.random.key(0)
    return J.lax.scan(lambda c, x: (c + J.jax.random.normal(k), None), 0.0, None, length=1)


def scan_closed_split(J):
    k = J.jax.random.key(0)
    return J.lax.scan(lambda c, x: (c + J.jax.random.split(k)[0:1].shape[0], None), 0,
                      None, length=2)


def fori_closed(J):
    k = J.jax.random.key(0)
    return J.lax.fori_loop(0, 3, lambda i, c: c + J.jax.random.normal(k), 0.0)


def fori_closed_fold_in(J):
    k = J.jax.random.key(0)
    return J.lax.fori_loop(
        0, 3, lambda i, c: c + J.jax.random.normal(J.jax.random.fold_in(k, i)), 0.0)


def while_body_closed(J):
    k = J.jax.random.key(0)
    return J.lax.while_loop(lambda c: c[0] < 3,
                            lambda c: (c[0] + 1, c[1] + J.jax.random.normal(k)), (0, 0.0))


def while_cond_closed(J):
    k = J.jax.random.key(0)
    return J.lax.while_loop(lambda c: J.jax.random.normal(k) < c, lambda c: c - 1.0, 3.0)


def while_key_carry(J):
    def body(c):
        i, k, s = c
        k, sub = J.jax.random.split(k)
        return i + 1, k, s + J.jax.random.normal(sub)
    return J.lax.while_loop(lambda c: c[0] < 3, body, (0, J.jax.random.key(0), 0.0))


def scan_key_carry(J):
    def body(k, x):
        k, sub = J.jax.random.split(k)
        return k, J.jax.random.normal(sub)
    return J.lax.scan(body, J.jax.random.key(0), None, length=3)


def scan_keys_scanned(J):
    ks = J.jax.random.split(J.jax.random.key(0), 3)
    return J.lax.scan(lambda c, k: (c + J.jax.random.normal(k), None), 0.0, ks)


def map_closed(J):
    k = J.jax.random.key(0)
    return J.lax.map(lambda x: x + J.jax.random.normal(k), J.jnp.arange(3.0))


def cond_closed_once(J):
    k = J.jax.random.key(0)
    return J.lax.cond(True, lambda: J.jax.random.normal(k), lambda: 0.0)


def jit_closed_once(J):
    k = J.jax.random.key(0)
    return J.jax.jit(lambda x: x + J.jax.random.normal(k))(1.0)


def jit_closed_twice(J):
    k = J.jax.random.key(0)
    f = J.jax.jit(lambda x: x + J.jax.random.normal(k))
    f(1.0)
    return f(2.0)


def jit_closed_twice_new_signature(J):
    k = J.jax.random.key(0)
    f = J.jax.jit(lambda x: x + J.jax.random.normal(k))
    f(1.0)
    return f(J.jnp.ones(3))


def jit_closed_split_twice(J):
    k = J.jax.random.key(0)
    f = J.jax.jit(lambda x: x + J.jax.random.normal(J.jax.random.split(k)[0]))
    f(1.0)
    return f(2.0)


def jit_closed_fold_in_twice(J):
    k = J.jax.random.key(0)
    f = J.jax.jit(lambda x: x + J.jax.random.normal(J.jax.random.fold_in(k, 1)))
    f(1.0)
    return f(2.0)


def jit_closed_in_cond_twice(J):
    k = J.jax.random.key(0)
    f = J.jax.jit(lambda x: J.lax.cond(x > 0, lambda: J.jax.random.normal(k), lambda: 0.0))
    f(1.0)
    return f(2.0)


def jit_closed_then_eager(J):
    k = J.jax.random.key(0)
    J.jax.jit(lambda x: x + J.jax.random.normal(k))(1.0)
    return J.jax.random.normal(k)


def jit_closed_twice_no_reuse_between(J):
    k = J.jax.random.key(0)
    f = J.jax.jit(lambda x: x + J.jax.random.normal(k))
    g = J.jax.jit(lambda x: x * 2.0)
    f(1.0)
    return g(2.0), g(3.0)


def two_jits_same_closed_key(J):
    k = J.jax.random.key(0)
    J.jax.jit(lambda x: x + J.jax.random.normal(k))(1.0)
    return J.jax.jit(lambda x: x - J.jax.random.normal(k))(1.0)


def jit_closed_and_key_argument(J):
    k = J.jax.random.key(0)
    f = J.jax.jit(lambda kk: J.jax.random.normal(kk) + J.jax.random.normal(k))
    f(J.jax.random.key(1))
    return f(J.jax.random.key(2))


CASES = {f.__name__: f for f in [
    scan_closed, scan_closed_one_trip, scan_closed_split, fori_closed, fori_closed_fold_in,
    while_body_closed, while_cond_closed, while_key_carry, scan_key_carry,
    scan_keys_scanned, map_closed, cond_closed_once, jit_closed_once, jit_closed_twice,
    jit_closed_twice_new_signature, jit_closed_split_twice, jit_closed_fold_in_twice,
    jit_closed_in_cond_twice, jit_closed_then_eager, jit_closed_twice_no_reuse_between,
    two_jits_same_closed_key, jit_closed_and_key_argument]}


def verdict(case, J):
    """"ok", or the class name of the error the program raised under the checker."""
    try:
        with J.jax.debug_key_reuse(True):
            case(J)
    except Exception as e:   # noqa: BLE001 (the verdict is the class)
        return type(e).__name__
    return "ok"


def main():
    import types
    import jax
    import jax.numpy as jnp
    from jax import lax
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax)
    out = {"jax": jax.__version__, "cases": {n: verdict(c, J) for n, c in CASES.items()}}
    (HERE / "key_reuse_eager.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
