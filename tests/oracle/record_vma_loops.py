"""Manual-axis types carried through loop and branch bodies inside `shard_map`: a value
made by `lax.all_gather(..., to='reduced')` (JAX's Reduced type, on an Explicit 2x2
mesh) carried through `scan` / `fori_loop` / `while_loop` / `cond` / `switch`, closed
over by their bodies or scanned over, with out_specs that keep or drop the reduced
axis; and a loop carry started from `jnp.zeros_like` / `ones_like` / `full_like` of a
varying value (typed as it: JAX's implicit pvary); `cond` / `switch` branches varying
over different manual axes (JAX's TypeError: no implicit pvary there). Per case the result's value, layout
and `jax.typeof` of the body's result, or JAX's error. Run on JAX 0.10.2 with 4 CPU
devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_vma_loops.py`) to write vma_loops.json; run on astjax by
tests/test_vma_loops.py."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))
from oracle import record_vma_reverse as rev  # noqa: E402

PATH = Path(__file__).with_name("vma_loops.json")


def cases(jax):
    """name -> (body, out_spec, mesh name) for `rev.run_reduced`."""
    lax, jnp = jax.lax, jax.numpy
    P = jax.sharding.PartitionSpec
    red, rep, xy = P(None, "y", reduced={"x"}), P(None, "y"), P("x", "y")

    def gathered(a):
        return lax.all_gather(a, "x", to="reduced", tiled=True)

    def pred(a):            # a predicate invariant over both axes
        return lax.psum(a.sum(), ("x", "y")) > 0

    def scan_carry(a):
        return lax.scan(lambda c, _: (c * 2.0, None), gathered(a), None, length=2)[0]

    def scan_closed_over(a):
        r = gathered(a)
        return lax.scan(lambda c, _: (c + r, None), r, None, length=2)[0]

    def scan_ys(a):
        r = gathered(a)
        return lax.scan(lambda c, x: (c, x * 3.0), 0.0, r)[1]

    def scan_invariant_carry(a):   # an invariant carry mixed with a reduced value
        r = gathered(a)
        return lax.scan(lambda c, _: (c + r, None), jnp.zeros((4, 2)), None, length=2)[0]

    def fori(a):
        return lax.fori_loop(0, 3, lambda i, c: c + 1.0, gathered(a))

    def while_(a):
        return lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] * 2.0),
                              (0, gathered(a)))[1]

    def cond_(a):
        return lax.cond(pred(a), lambda c: c * 2.0, lambda c: c - 1.0, gathered(a))

    def cond_mixed(a):      # one branch reduced, the other not
        r = gathered(a)
        return lax.cond(pred(a), lambda: r, lambda: jnp.zeros((4, 2)))

    def switch_(a):
        return lax.switch(pred(a).astype(jnp.int32), [lambda c: c + 1.0, lambda c: c * 3.0],
                          gathered(a))

    def scan_carry_becomes_reduced(a):   # a carry typed {V:y} that the body makes reduced
        init = lax.pcast(jnp.zeros((4, 2)), "y", to="varying")
        return lax.scan(lambda c, _: (gathered(a), None), init, None, length=2)[0]

    def while_unary(a):     # a reduced carry through unary operations only
        return lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, jnp.sin(c[1])),
                              (0, gathered(a)))[1]

    def cond_both_reduced(a):
        r = gathered(a)
        return lax.cond(pred(a), lambda: r * r, lambda: r)

    def two_reduced(a):     # reduced over 'x' plus reduced over 'y' (each varies where
        return gathered(a) + lax.all_gather(a, "y", to="reduced", tiled=True)  # the other is)

    def cond_varying(a):    # branches varying over different axes: JAX's TypeError
        return lax.cond(pred(a), lambda c: lax.psum(c, "x"), lambda c: c * 2.0, a)

    def switch_varying(a):
        return lax.switch(pred(a).astype(jnp.int32) + 1, [
            lambda c: c, lambda c: c + 1.0, lambda c: (lax.psum(c, "y"), c)[0]], a)

    def cond_varying_alike(a):  # both reduce over 'x': typed alike
        return lax.cond(pred(a), lambda c: lax.psum(c, "x"), lambda c: lax.psum(c * 2.0, "x"),
                        a)

    def loop_from(like):    # a varying carry started from a value made like it
        return lambda a: lax.fori_loop(0, 3, lambda i, c: c * a, like(a))

    return {
        "scan_carry": (scan_carry, red, "explicit"),
        "scan_carry_replicated": (scan_carry, rep, "explicit"),
        "scan_closed_over": (scan_closed_over, red, "explicit"),
        "scan_ys": (scan_ys, red, "explicit"),
        "scan_invariant_carry": (scan_invariant_carry, red, "explicit"),
        "fori_loop": (fori, red, "explicit"),
        "while_loop": (while_, red, "explicit"),
        "while_loop_replicated": (while_, rep, "explicit"),
        "cond": (cond_, red, "explicit"),
        "cond_mixed": (cond_mixed, red, "explicit"),
        "switch": (switch_, red, "explicit"),
        "scan_carry_becomes_reduced": (scan_carry_becomes_reduced, red, "explicit"),
        "while_loop_unary": (while_unary, red, "explicit"),
        "cond_both_reduced": (cond_both_reduced, red, "explicit"),
        "two_reduced": (two_reduced, P(), "explicit"),
        "cond_varying_mismatch": (cond_varying, xy, "2x2"),
        "switch_varying_mismatch": (switch_varying, xy, "2x2"),
        "cond_varying_alike": (cond_varying_alike, rep, "2x2"),
        "zeros_like_carry": (loop_from(jnp.zeros_like), xy, "2x2"),
        "ones_like_carry": (loop_from(jnp.ones_like), xy, "2x2"),
        "full_like_carry": (loop_from(lambda a: jnp.full_like(a, 2.0)), xy, "2x2"),
        "lax_full_like_carry": (loop_from(lambda a: lax.full_like(a, 2.0)), xy, "2x2"),
        "zeros_carry": (loop_from(lambda a: jnp.zeros(a.shape)), xy, "2x2"),
    }


def record(jax):
    return {k: rev.run_reduced(jax, c) for k, c in cases(jax).items()}


if __name__ == "__main__":
    import jax
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps(record(jax), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
