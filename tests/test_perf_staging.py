"""Mechanism tests for issue 14 (speed), staging passes: nested `cond` / `scan` /
`while` run each rule (DCE, JVP, partial evaluation) a number of times linear in their
depth, also under `grad`; the passes' memo does not outlive the outermost call;
`simplify` and an aval's size cost one lookup each; staging and lowering one operation
enter no helper frame. Each test pins *why* a workload is fast, never a time."""
import re

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.primitives.cond import cond_p
from astjax.transforms import dce as dce_pass
from astjax.transforms.dce import dce_closed
from perf_helpers import count_calls, nested_cond, straight_function


def _nested_scan(depth):
    if depth == 0:
        return lambda c, x: (c + jnp.sin(x), c * x)

    inner = _nested_scan(depth - 1)

    def body(c, x):
        c2, ys = lax.scan(inner, c, x * jnp.ones(3))
        return c2 * 0.5 + x, ys.sum() + c
    return body


def _nested_while(depth):
    if depth == 0:
        return lambda i, c: (c[0] + 1.0, c[1] * 2.0, c[2])

    inner = _nested_while(depth - 1)

    def body(i, c):
        c2 = lax.fori_loop(0, 2, inner, c)
        return (c2[0] + c[1], c2[1], c2[2] - c[0])
    return body


def _rule_calls(monkeypatch, prim, kinds):
    counts = dict.fromkeys(kinds, 0)
    for kind in kinds:
        orig = getattr(prim, kind)

        def counted(*a, _orig=orig, _kind=kind, **k):
            counts[_kind] += 1
            return _orig(*a, **k)
        monkeypatch.setattr(prim, kind, counted)
    return counts


def _cond_counts(monkeypatch, depth, grad):
    with monkeypatch.context() as m:
        counts = _rule_calls(m, cond_p, ("dce", "jvp", "partial_eval"))
        f = nested_cond(depth)
        fn = astjax.grad(lambda x: jnp.sum(f(x))) if grad else f
        dce_closed(astjax.make_jaxpr(fn)(np.ones(4, np.float32)))   # (DCE: as lowered)
        return dict(counts)


def test_nested_cond_staging_runs_each_rule_linearly_in_depth(monkeypatch):
    for depth in (4, 8, 12):
        c = _cond_counts(monkeypatch, depth, grad=False)
        assert c["dce"] == depth, (depth, c)  # one DCE per cond (was 2^depth - 1)


def test_grad_through_nested_conds_runs_rules_linearly_in_depth(monkeypatch):
    per = {}
    for depth in (4, 8, 12):
        per[depth] = _cond_counts(monkeypatch, depth, grad=True)
        for kind in ("jvp", "partial_eval"):
            assert per[depth][kind] <= 2 * depth, (depth, per[depth])
        assert per[depth]["dce"] <= 6 * depth, (depth, per[depth])
    # linear: equal increments per 4 levels
    for kind in ("jvp", "partial_eval", "dce"):
        assert per[12][kind] - per[8][kind] == per[8][kind] - per[4][kind], per


def _pass_runs(fn, *args):
    dce_pass.reset_counts()
    astjax.make_jaxpr(fn)(*args)
    return dict(dce_pass.runs)


def test_nested_scan_and_while_passes_grow_linearly():
    x = np.ones(3, np.float32)
    for make, arg in ((_nested_scan, None), (_nested_while, None)):
        runs = {}
        for depth in (2, 4, 6):
            body = make(depth)
            if make is _nested_scan:
                def loss(c, body=body):
                    c2, ys = lax.scan(body, c, x)
                    return c2 + ys.sum()
            else:
                def loss(c, body=body):
                    out = lax.fori_loop(0, 2, body, (c, c * 2.0, c * 3.0))
                    return out[0] + out[1]
            runs[depth] = _pass_runs(astjax.grad(loss), np.float32(1.0))
        for name in ("dce_jaxpr", "jvp_jaxpr", "partial_eval_jaxpr"):
            d1 = runs[4][name] - runs[2][name]
            d2 = runs[6][name] - runs[4][name]
            assert d2 <= d1 + 2, (make.__name__, name, runs)


def test_pass_memo_is_dropped_after_the_outermost_call():
    f = nested_cond(3)
    astjax.make_jaxpr(astjax.grad(lambda x: jnp.sum(f(x))))(np.ones(4, np.float32))
    dce_pass.reset_counts()
    astjax.make_jaxpr(astjax.grad(lambda x: jnp.sum(f(x))))(np.ones(4, np.float32))
    assert dce_pass.runs["jvp_jaxpr"] > 0  # a new transformation recomputes: no stale reuse


def test_aval_size_is_counted_without_numpy(monkeypatch):
    """Staging asks each equation's output avals for their size (constant folding):
    a Python product of the shape, not `np.prod` (ten times the time)."""
    from astjax import core

    def refuse(*a, **k):
        raise AssertionError("np.prod ran")
    monkeypatch.setattr(np, "prod", refuse)
    assert core.ShapedArray((3, 4, 5), np.float32).size == 60
    assert core.ShapedArray((), np.float32).size == 1
    assert core.ShapedArray((7, 0), np.int32).size == 0
    assert type(core.ShapedArray((2, 2), np.float32).size) is int


def test_simplify_restores_weak_outputs_with_one_lookup_each(monkeypatch):
    """An output forwarded to a value of another weak type gets one convert back; an
    output listed twice is converted once, known from the kept equations' producers
    (was a scan of every equation per output: quadratic in outputs)."""
    from astjax import core
    from astjax.primitives import structural as st
    from astjax.transforms import simplify
    reads = [0]
    slot = core.Eqn.__dict__["outvars"]
    monkeypatch.setattr(core.Eqn, "outvars", property(
        lambda e: (reads.__setitem__(0, reads[0] + 1), slot.__get__(e))[1],
        lambda e, v: slot.__set__(e, v)))

    def run(n):
        a = core.Var(core.ShapedArray((), np.float32))
        outs = [core.Var(core.ShapedArray((), np.float32, weak_type=True)) for _ in range(n)]
        eqns = [core.Eqn(st.convert_element_type_p, [a], [b],
                         dict(new_dtype=np.dtype(np.float32), weak_type=True)) for b in outs]
        reads[0] = 0
        out = simplify.simplify_jaxpr(core.Jaxpr([], [a], outs + outs[:1], eqns))
        return out, reads[0]
    (_, r200), (out, r400) = run(200), run(400)
    assert r400 <= 2 * r200 + 20, (r200, r400)
    assert len(out.eqns) == 400 and out.outvars[-1] is out.outvars[0]
    assert all(e.invars[0] is out.eqns[0].invars[0] and e.outvars[0].aval.weak_type
               for e in out.eqns)


def test_staging_and_lowering_an_operation_enter_no_helper(monkeypatch, tmp_path):
    """Per staged operation, `Primitive.bind` goes to `Builder.add_eqn` directly and
    `add_eqn` makes the single result's Tracer itself (no `core.bind`,
    `current_source_info` or `tracer_for` frame: the argument's is the one); per lowered one-result operation
    the module builder writes the line itself (no `Namer.fresh`, `emit` or
    `_check_op_types` frame). The module text is unchanged: every SSA value is
    defined once, in order."""
    from astjax import core, util
    from astjax.codegen import stablehlo
    counts = count_calls(monkeypatch, [
        (core, "bind", "bind"), (core, "current_source_info", "info"),
        (core, "tracer_for", "tracer_for"), (core.Builder, "add_eqn", "eqns"),
        (util.Namer, "fresh", "fresh"), (stablehlo.ModuleBuilder, "emit", "emit"),
        (stablehlo, "_check_op_types", "check"), (stablehlo, "lower_module", "modules")])
    path = tmp_path / "ops.py"
    path.write_text(straight_function(40))
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    text = str(astjax.jit(ns["f"]).lower(jnp.ones(3)).as_text())
    assert counts["eqns"] >= 80, counts
    # (one tracer_for: the argument's; one emit per module: its `func.return`)
    assert (counts["bind"], counts["info"], counts["tracer_for"]) == (0, 0, 1), counts
    assert (counts["fresh"], counts["check"]) == (0, 0), counts
    assert counts["emit"] == counts["modules"] >= 1, counts
    defined = [int(m) for m in re.findall(r"^\s*%(\d+) = ", text, re.M)]
    assert defined == list(range(len(defined))) and len(defined) >= 80
