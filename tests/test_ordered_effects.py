"""Ordered effects as JAX 0.10.2 lowers and runs them (tests/oracle/record_ordered_effects.py
-> ordered_effects.json): each effect's `!stablehlo.token` threaded through `@main` and
through `cond`, `while`, `scan`, an inner `jit`, `custom_jvp` / `custom_vjp` /
`checkpoint` bodies (exact texts), the values, the printed lines and the io callback's
calls in order -- also across consecutive calls, which pass the runtime token on.
Beyond one device (record_ordered_effects_spmd.py -> ordered_effects_spmd.json): a
`jit` with sharded arguments or results, under `set_mesh`, a `shard_map`, a `pmap`,
a `jit` taking tokens or `Ref`s; and a batched `while` whose condition prints."""
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import io_callback
from astjax.primitives import effects

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_ordered_effects import CASES  # noqa: E402
from oracle import compare  # noqa: E402

RECORDED = compare.load("ordered_effects")["cases"]
J = types.SimpleNamespace(jax=astjax, jnp=jnp, io_callback=io_callback)
KNOWN = {
    ("scan_both", "text"): "JAX's _scan_impl lowers the body as a private @closed_call "
                           "(tokens first in and out), slices xs and updates ys in private "
                           "@dynamic_index_in_dim / @dynamic_update_index_in_dim, carries "
                           "tokens, xs, counter, carry, ys and prints its compare with "
                           "SIGNED; astjax lowers the body inline in the loop, carrying "
                           "tokens, counter, carry, xs, ys (and a dead index constant). "
                           "The tokens are threaded alike: "
                           "test_scan_threads_the_tokens_as_jax",
}
PROGRAMS = [(n, k) for n in sorted(RECORDED["programs"]) for k in ("text", "value", "printed",
                                                                      "log")]


@pytest.fixture(scope="module")
def results():
    return {name: case(J) for name, case in CASES.items()}


def test_every_case_recorded(results):
    assert sorted(RECORDED) == sorted(CASES)
    assert sorted(RECORDED["programs"]) == sorted(results["programs"])


def _effects_unordered(text):
    """`text` with the tokens of two effects in a canonical order: JAX orders them as
    its set of effects iterates (by the effect objects' ids: the order differs between
    processes -- the recorded texts have `debug` first, a run of the same programs in
    another script `io` first), astjax as `effects.ORDER`. The two token arguments get
    one name and the two token results of `@main`'s return are sorted."""
    if "%arg1: !stablehlo.token" not in text:
        return text
    text = re.sub(r"%arg[01]\b", "%argT", text)
    ret = re.search(r"^(    return )([^,]+), ([^,]+),", text, re.M)
    return text[:ret.start(2)] + ", ".join(sorted(ret.group(2, 3))) + text[ret.end(3):]


def _tokens(text):
    """Where a module's tokens go: `@main`'s token parameters and results (with and
    without `jax.token`), each host callback's signature and each `return`'s types."""
    out = []
    for ln in text.splitlines():
        ln = ln.strip()
        if ln.startswith("func.func public @main("):
            args, res = ln.split(") -> (", 1)
            out.append(("main", *(s.count("!stablehlo.token" + a) for s in (args, res)
                                  for a in (" {jax.token = true}", ""))))
        elif "stablehlo.custom_call @xla_ffi_python" in ln or ln.startswith("return "):
            out.append(("return" if ln.startswith("return ") else "callback",
                        ln.rsplit(" : ", 1)[1]))
    return out


@pytest.mark.parametrize("case", compare.cases(PROGRAMS, KNOWN), ids="/".join)
def test_program_as_jax(results, case):
    name, key = case
    got, want = results["programs"][name][key], RECORDED["programs"][name][key]
    if key == "value":
        compare.assert_close(got, want, rtol=1e-6, atol=1e-6)
    elif key == "text":
        assert _effects_unordered(got) == _effects_unordered(want)
    else:
        assert got == want


@pytest.mark.parametrize("key", ["value", "printed", "log"])
def test_consecutive_calls_in_order(results, key):
    assert results["consecutive"][key] == RECORDED["consecutive"][key]


@pytest.mark.parametrize("key", ["value", "printed", "committed_text"])
def test_ahead_of_time_as_jax(results, key):
    assert results["ahead_of_time"][key] == RECORDED["ahead_of_time"][key]


@pytest.mark.parametrize("name", sorted(RECORDED["remat_prints"]))
def test_remat_prints_as_jax(results, name):
    got, want = results["remat_prints"][name], RECORDED["remat_prints"][name]
    assert got["printed"] == want["printed"]
    compare.assert_close(got["value"], want["value"], rtol=1e-6)


@pytest.mark.skipif(len(astjax.devices()) < 2, reason="needs 2 devices "
                    "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")
def test_multi_device_as_jax(results):
    assert results["multi_device"] == RECORDED["multi_device"]


def test_scan_threads_the_tokens_as_jax(results):
    """@main's signature is JAX's and the while loop carries both tokens first."""
    got, want = results["programs"]["scan_both"]["text"], RECORDED["programs"]["scan_both"]["text"]

    def main(t):
        return next(ln for ln in t.splitlines() if "@main(" in ln)
    assert main(got) == main(want)
    carried = re.search(r"stablehlo\.while\(.*\) : (.*)$", got, re.M).group(1).split(", ")
    assert carried[:2] == ["!stablehlo.token"] * 2
    def calls(t):   # (the callbacks, each taking its effect's token)
        return [ln for ln in t.splitlines() if "custom_call" in ln and ": (!stablehlo.token, " in ln]
    assert len(calls(got)) == len(calls(want)) == 2
    # in the body's order (the io callback's, then the print's), each taking its token
    # and returning the next (JAX's in @closed_call, whose `return` comes after main's)
    def threaded(t):
        return [e for e in _tokens(t) if e[0] != "return"]
    assert threaded(got) == threaded(want)


def test_runtime_token_kept_per_effect():
    """The token a call returns is the one the next call of that effect takes."""
    f = astjax.jit(lambda x: io_callback(lambda a: np.asarray(a), astjax.ShapeDtypeStruct(
        (), jnp.float32), x, ordered=True))
    f(1.0)
    first = effects.RUNTIME_TOKENS["io"]
    f(2.0)
    assert effects.RUNTIME_TOKENS["io"] is not first
    assert first.shape == (0,) and first.dtype == np.bool_


def test_program_without_ordered_effects_is_a_plain_entry():
    """No tokens, no runtime token: the fast dispatch paths take it."""
    from astjax.dispatch_keys import Entry
    f = astjax.jit(lambda x: x + 1)
    f(jnp.ones(2))
    entry, _ = f._entry((jnp.ones(2),), {})
    assert type(entry) is Entry
    assert "!stablehlo.token" not in f.lower(jnp.ones(2)).as_text()


class _Pending:
    """A runtime token whose program is still running: records the wait."""
    def __init__(self, log):
        self.log = log

    def block_until_ready(self):
        self.log.append("waited")


@pytest.mark.parametrize("effect,how", [("io", "io_callback"), ("debug", "print"),
                                        ("debug", "callback")])
def test_eager_ordered_callback_waits_for_the_last_token(effect, how, capsys):
    """Outside `jit`, an ordered callback runs after the programs with its effect
    dispatched before it (JAX passes it their token)."""
    log = []
    saved = effects.RUNTIME_TOKENS.get(effect)
    effects.RUNTIME_TOKENS[effect] = _Pending(log)
    try:
        if how == "io_callback":
            io_callback(lambda a: log.append("called"), None, 1.0, ordered=True)
        elif how == "callback":
            astjax.debug.callback(lambda a: log.append("called"), 1.0, ordered=True)
        else:
            astjax.debug.print("p", ordered=True)
            log.append(capsys.readouterr().out)
    finally:
        effects.RUNTIME_TOKENS.pop(effect)
        if saved is not None:
            effects.RUNTIME_TOKENS[effect] = saved
    assert log == ["waited", "p\n" if how == "print" else "called"]


# ---------------------------------------------------------------- beyond one device
# (tests/oracle/record_ordered_effects_spmd.py -> ordered_effects_spmd.json)

SPMD = compare.load("ordered_effects_spmd")["cases"]
SPMD_KNOWN = {
    ("ref_io", "text"): "a Ref argument: JAX aliases its final value to the argument "
                        "(tf.aliasing_output), lays both out on the empty mesh and names "
                        "the results \"\"; astjax does none of these",
    ("ref_debug", "text"): "as ref_io",
}
SPMD_PROGRAMS = [(n, k) for n in sorted(SPMD["programs"]) for k in sorted(SPMD["programs"][n])]
needs_devices = pytest.mark.skipif(len(astjax.devices()) < 4, reason="needs 4 devices "
                                   "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def spmd_results():
    from record_ordered_effects_spmd import CASES as SPMD_CASES
    return {name: case(J) for name, case in SPMD_CASES.items()}


def _normal(text):
    """`text` without what differs between JAX's processes: the `stablehlo.mesh` copies
    of the mesh declarations (printed by some JAX processes only)."""
    return re.sub(r"^(  sdy\.mesh .*) \{stablehlo\.mesh = .*\}$", r"\1", text, flags=re.M)


@needs_devices
@pytest.mark.parametrize("case", compare.cases(SPMD_PROGRAMS, SPMD_KNOWN), ids="/".join)
def test_partitioned_program_as_jax(spmd_results, case):
    name, key = case
    got, want = spmd_results["programs"][name][key], SPMD["programs"][name][key]
    if key == "text":
        assert _normal(got) == _normal(want)
    elif key == "value":
        compare.assert_close(got, want, rtol=1e-6)
    else:
        assert got == want


@needs_devices
@pytest.mark.parametrize("name", sorted(SPMD["programs"]))
def test_tokens_as_jax(spmd_results, name):
    """Token parameters and results of `@main`, each callback taking its effect's
    token and returning the next, the tokens returned: JAX's (also where the rest of
    the text differs, SPMD_KNOWN)."""
    got, want = spmd_results["programs"][name]["text"], SPMD["programs"][name]["text"]
    assert _tokens(got) == _tokens(want)
    assert _tokens(got)[0][1] == 1   # (one effect: its token first)


@needs_devices
@pytest.mark.parametrize("key", ["value", "log"])
def test_partitioned_calls_in_order(spmd_results, key):
    assert spmd_results["consecutive"][key] == SPMD["consecutive"][key]


@needs_devices
def test_ordered_print_in_sharded_jit_refused_as_jax(spmd_results):
    assert spmd_results["refused"] == SPMD["refused"]


@needs_devices
@pytest.mark.parametrize("where", ["sharded", "pmap", "shard_map"])
def test_program_on_devices_waits_for_a_token_elsewhere(where):
    """A program on several devices passes on the token the last program with its
    effect left on others only once that program has run (JAX reshards the token)."""
    log = []
    P, NS = astjax.sharding.PartitionSpec, astjax.sharding.NamedSharding
    mesh = astjax.make_mesh((2,), ("x",), devices=astjax.devices()[:2],
                            axis_types=(astjax.sharding.AxisType.Auto,))

    def io(x):
        return io_callback(lambda a: (log.append("called"), np.asarray(a))[1],
                           astjax.ShapeDtypeStruct(x.shape, x.dtype), x, ordered=True)
    x = jnp.arange(4.0)
    run = {"sharded": lambda: astjax.jit(io)(astjax.device_put(x, NS(mesh, P("x")))),
           "pmap": lambda: astjax.pmap(io, devices=astjax.devices()[:2])(x.reshape(2, 2)),
           "shard_map": lambda: astjax.jit(astjax.shard_map(
               io, mesh=mesh, in_specs=P("x"), out_specs=P("x")))(x)}[where]
    saved = effects.RUNTIME_TOKENS.get("io")
    effects.RUNTIME_TOKENS["io"] = _Pending(log)
    try:
        run()
        astjax.effects_barrier()
        token = effects.RUNTIME_TOKENS["io"]
    finally:
        effects.RUNTIME_TOKENS.pop("io")
        if saved is not None:
            effects.RUNTIME_TOKENS["io"] = saved
    assert log[0] == "waited" and log[1:] == ["called"] * (len(log) - 1) and len(log) > 1
    assert set(token.devices()) == set(astjax.devices()[:2]) and token.shape == (0,)


def test_compiled_output_shardings_without_the_tokens():
    """`Compiled.output_shardings` of a program with an ordered effect: one per result
    (its token is no result of the function)."""
    def f(x):
        astjax.debug.print("x={}", x, ordered=True)
        return x * 2
    s = astjax.jit(f).lower(jnp.ones(2)).compile().output_shardings
    assert s == astjax.sharding.SingleDeviceSharding(astjax.devices()[0])


@pytest.mark.parametrize("jit", [False, True])
def test_batched_while_with_ordered_condition_runs_it_once_a_trip(jit, capsys):
    """`vmap` of a `while_loop` whose condition prints with ordered=True, its predicate
    batched: as in JAX 0.10.2, the condition runs once before the loop and once after
    each trip (4 prints of the 3 lanes here; with ordered=False it also runs again at
    the start of each trip). JAX's lowering then runs the body on the finished lanes
    too and returns [3 4 5] (printing their values, `2 3 4` and `3 4 5`); astjax keeps
    the finished lanes, the while_loop's own value [3 3 3]."""
    def f(x):
        def cond(c):
            astjax.debug.print("c {}", c, ordered=True)
            return c < 3
        return astjax.lax.while_loop(cond, lambda c: c + 1, x)
    g = astjax.vmap(f)
    out = (astjax.jit(g) if jit else g)(jnp.array([0, 1, 2]))
    astjax.effects_barrier()
    assert out.tolist() == [3, 3, 3]
    lanes = [[0, 1, 2], [1, 2, 3], [2, 3, 3], [3, 3, 3]]
    assert capsys.readouterr().out.split() == [w for ls in lanes for v in ls
                                                for w in ("c", str(v))]


def test_donated_argument_aliased_past_the_tokens():
    """A donated argument of a program with an ordered effect aliases its result at
    the result's index counting the token returned first (JAX 0.10.2's text:
    `tf.aliasing_output = 2` here); it compiled to XLA's size-mismatch error before."""
    def f(x, y):
        astjax.debug.print("x={}", x, ordered=True)
        return y * 2, x + 1
    g = astjax.jit(f, donate_argnums=0)
    main = next(ln for ln in g.lower(jnp.ones(3), jnp.ones(2)).as_text().splitlines()
                if "@main(" in ln)
    assert "%arg1: tensor<3xf32> {tf.aliasing_output = 2 : i32}" in main
    x = jnp.ones(3)
    out = g(x, jnp.ones(2))
    astjax.effects_barrier()
    assert [o.tolist() for o in out] == [[2.0, 2.0], [2.0] * 3] and x.is_deleted()


@needs_devices
def test_unnamed_pmap_axis_is_jax_internal_name():
    """A pmap without axis_name binds JAX's `_internal_pmap_axis_name` (its lowered
    mesh axis, test_partitioned_program_as_jax[pmap/text]) when it runs too, as JAX
    0.10.2: a collective may name it."""
    log = []

    def f(x):
        i = astjax.lax.axis_index("_internal_pmap_axis_name")
        return io_callback(lambda a: (log.append(float(a)), np.asarray(a))[1],
                           astjax.ShapeDtypeStruct((), jnp.float32), x + i, ordered=True)
    g = astjax.pmap(f, devices=astjax.devices()[:2])
    assert g(jnp.array([10.0, 20.0])).tolist() == [10.0, 21.0]
    astjax.effects_barrier()
    assert sorted(log) == [10.0, 21.0]
    assert "mesh = <[\"_internal_pmap_axis_name\"=2]>" in g.lower(jnp.ones(2)).as_text()
